/** VAT numbers for tests that create companies. */
import { randomInt } from 'node:crypto';

/**
 * A random German VAT number outside the sandbox registry's scenarios (a number ending in 0000 is
 * unknown to it, one ending in 9999 has ceased trading: adapters/sandbox-network), so creating a
 * company with it always succeeds.
 */
export function randomGermanVat(): string {
  for (;;) {
    const digits = String(randomInt(100_000_000, 999_999_998));
    if (!digits.endsWith('0000') && !digits.endsWith('9999')) return `DE${digits}`;
  }
}
