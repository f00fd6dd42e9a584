/**
 * What the QR code holds. EVM top-ups come with the API's own EIP-681 `payment_uri` (asked for with is_evm);
 * coins with a BIP21-style scheme get one built here with the exact amount; anything else (TRON, Solana
 * tokens) is the bare address, which every wallet scans.
 */
const bip21Schemes: Record<string, string> = {
  'BTC/BTC': 'bitcoin',
  'LTC/LTC': 'litecoin',
  'DOGE/DOGE': 'dogecoin',
};

export interface PaymentTarget {
  deposit_address: string;
  deposit_amount_decimal: string;
  asset_code: string;
  blockchain_code: string;
  payment_uri?: string;
}

export function paymentUri(topup: PaymentTarget): { uri: string; kind: 'eip681' | 'bip21' | 'address' } {
  if (topup.payment_uri) return { uri: topup.payment_uri, kind: 'eip681' };
  const scheme = bip21Schemes[`${topup.asset_code}/${topup.blockchain_code}`];
  if (scheme) return { uri: `${scheme}:${topup.deposit_address}?amount=${topup.deposit_amount_decimal}`, kind: 'bip21' };
  return { uri: topup.deposit_address, kind: 'address' };
}

/** Stablecoins first (their quote barely moves while the payment travels), then by name. */
export function sortAssets<T extends { is_stable: boolean; asset_name: string; blockchain_name: string }>(assets: readonly T[]): T[] {
  return [...assets].sort(
    (left, right) =>
      Number(right.is_stable) - Number(left.is_stable) ||
      left.asset_name.localeCompare(right.asset_name) ||
      left.blockchain_name.localeCompare(right.blockchain_name),
  );
}
