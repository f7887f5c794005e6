/**
 * Short random ids: approval ids are 10 base32 characters (50 bits), small enough for a Telegram
 * `callback_data` (64 bytes) with a prefix; pairing codes are 8 characters without look-alikes (no 0/O,
 * 1/I/L) so they survive being read aloud or retyped. Admin tokens are stored only as sha256 hex.
 */
import { createHash, randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const PAIRING = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely for alphabets that do not divide 256.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export const APPROVAL_ID_RE = /^[a-z2-7]{10}$/;
export const PAIRING_CODE_RE = /^[A-HJKMNP-Z2-9]{8}$/;

export function newApprovalId(): string {
  return randomString(BASE32, 10);
}

export function newPairingCode(): string {
  return randomString(PAIRING, 8);
}

export function hashAdminToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
