import { AppError } from '@mtx/shared/errors';
import { formatUnits, unitsForEurCents } from '../domain/money';
import { topupAmountMinEurCents } from '../domain/topup-state';
import type { PaymentProvider, ProviderAsset } from '../providers/provider';
import type { TopupDocument } from '../store/payments-store';

import type { TopupsState } from './topups-state';
import type { AssetRow } from './topup-types';

/** What a top-up can be paid in: each provider's assets and rates, cached for a while. */

export function providerNamed(state: TopupsState, name: string): PaymentProvider {
  const provider = state.providers.get(name);
  if (!provider) throw new AppError('not_found', `no payment provider ${name}`, { param: 'provider' });
  return provider;
}

/**
 * A provider's assets, reused for PROVIDER_ASSETS_CACHE_MS: for one amount (a provider may quote each amount
 * itself), or without one (rates only, for late coin).
 */
export async function assetsOf(state: TopupsState, provider: PaymentProvider, amountEurCents?: number): Promise<ProviderAsset[]> {
  const nowMs = state.clock.now().getTime();
  const cacheKey = amountEurCents === undefined ? provider.name : `${provider.name}:${amountEurCents}`;
  const cached = state.assetCache.get(cacheKey);
  if (cached && Math.abs(nowMs - cached.loadedAtMs) < state.options.assetsCacheMs) return cached.assets;
  const assets = await provider.listAssets(amountEurCents);
  state.assetCache.set(cacheKey, { loadedAtMs: nowMs, assets });
  return assets;
}

/** What `amountEurCents` costs in the asset's smallest unit: the provider's own quote where it gave one. */
export function quotedUnits(asset: ProviderAsset, amountEurCents: number): bigint {
  return asset.amountUnits !== undefined ? BigInt(asset.amountUnits) : unitsForEurCents(amountEurCents, asset.rateEur, asset.decimals);
}

/**
 * The smallest top-up the pair takes now, in whole cents: the provider's minimum rounded up (a top-up of that size
 * is accepted), and never below the product's own minimum top-up.
 */
export function minimumTopupOf(asset: ProviderAsset): number {
  return Math.max(topupAmountMinEurCents, Math.ceil(asset.minimumEurCents));
}

export function assetRow(asset: ProviderAsset, amountEurCents: number): AssetRow {
  return {
    asset_code: asset.assetCode,
    asset_name: asset.assetName,
    blockchain_code: asset.blockchainCode,
    blockchain_name: asset.blockchainName,
    is_evm: asset.isEvm,
    is_stable: asset.isStable,
    amount: formatUnits(quotedUnits(asset, amountEurCents), asset.decimals),
    decimals: asset.decimals,
    display_decimals: asset.displayDecimals,
    min_amount_eur_cents: minimumTopupOf(asset),
  };
}

export async function marketRateFor(state: TopupsState, topup: TopupDocument): Promise<string> {
  const assets = await assetsOf(state, providerNamed(state, topup.provider));
  const asset = assets.find((candidate) => candidate.assetCode === topup.asset_code && candidate.blockchainCode === topup.blockchain_code);
  if (!asset) throw new AppError('unavailable', `the provider no longer quotes ${topup.asset_code} on ${topup.blockchain_code}`);
  return asset.rateEur;
}
