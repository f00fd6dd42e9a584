import crypto from 'node:crypto';
import type { AddressStyle, ListedAsset } from './catalog';

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const bech32Alphabet = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function randomFrom(alphabet: string, length: number): string {
  let output = '';
  while (output.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // Reject bytes past the last whole multiple of the alphabet so every character is equally likely.
      if (byte < 256 - (256 % alphabet.length) && output.length < length) output += alphabet[byte % alphabet.length];
    }
  }
  return output;
}

/** A fresh deposit address in the chain's own format (0x… on EVM chains, T… on Tron, bc1q… on Bitcoin, …). */
export function newDepositAddress(style: AddressStyle): string {
  switch (style) {
    case 'evm':
      return `0x${crypto.randomBytes(20).toString('hex')}`;
    case 'tron':
      return `T${randomFrom(base58Alphabet, 33)}`;
    case 'bitcoin':
      return `bc1q${randomFrom(bech32Alphabet, 38)}`;
    case 'litecoin':
      return `ltc1q${randomFrom(bech32Alphabet, 38)}`;
    case 'solana':
      return randomFrom(base58Alphabet, 44);
    case 'dogecoin':
      return `D${randomFrom(base58Alphabet, 33)}`;
  }
}

/** A transaction hash in the chain's format. */
export function newTransactionHash(style: AddressStyle): string {
  if (style === 'solana') return randomFrom(base58Alphabet, 88);
  const hex = crypto.randomBytes(32).toString('hex');
  return style === 'evm' ? `0x${hex}` : hex;
}

/**
 * EIP-681 payment request for wallet-connect flows: a Web3 wallet opens it with the recipient, chain and exact
 * amount filled in, for the native coin or through the token's `transfer`.
 */
export function evmPaymentUri(asset: ListedAsset, address: string, amountUnits: string): string | undefined {
  if (!asset.chain.isEvm || asset.chain.evmChainId === undefined) return undefined;
  if (asset.tokenContract)
    return `ethereum:${asset.tokenContract}@${asset.chain.evmChainId}/transfer?address=${address}&uint256=${amountUnits}`;
  return `ethereum:${address}@${asset.chain.evmChainId}?value=${amountUnits}`;
}
