/**
 * Currency codes, minor units and rounding (commerce §1.1, §1.2). The platform's Intl data is
 * the single source of currency facts, so there is no currency table to keep up to date here.
 */

/** Minor units per uppercase code; at most 26³ well-formed codes can ever land here. */
const minorUnitsByCode = new Map<string, number>();

/** Built on first use: the list is fixed for the life of the process. */
let knownCurrencies: ReadonlySet<string> | undefined;

const THREE_LETTERS = /^[A-Za-z]{3}$/;

/** ISO 4217 minor units of a currency (JPY 0, USD 2, BHD 3), as the platform's Intl data knows them; throws RangeError for a malformed code. */
export function minorUnits(currency: string): number {
  const code = currency.toUpperCase();
  let digits = minorUnitsByCode.get(code);
  if (digits === undefined) {
    // A currency formatter's default fraction digits are the currency's minor units
    // (ECMA-402 CurrencyDigits), so this is the one place the fact is read from.
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    minorUnitsByCode.set(code, digits);
  }
  return digits;
}

/** Rounds an amount to the currency's minor units, half away from zero, without binary drift: 1.005 USD → 1.01, -2.5 JPY → -3. */
export function roundMoney(amount: number, currency: string): number {
  const digits = minorUnits(currency);
  if (!Number.isFinite(amount)) return amount;
  // Round the shortest decimal that reads back as this double, not the double's exact binary
  // value: 1.005 is stored as 1.00499999…, yet every client and every decimal source meant
  // 1.005. toExponential() with no argument gives exactly those shortest digits.
  const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(amount).toExponential());
  if (!match) return amount;
  const significant = `${match[1] ?? ''}${match[2] ?? ''}`;
  // How many of the significant digits lie before the point once scaled to minor units.
  const kept = Number(match[3]) + 1 + digits;
  if (kept >= significant.length) return amount === 0 ? 0 : amount; // already exact; -0 becomes 0
  let units = kept > 0 ? BigInt(significant.slice(0, kept)) : 0n;
  if (kept >= 0 && significant.charCodeAt(kept) >= 53 /* '5' */) units += 1n;
  if (units === 0n) return 0;
  // Parsing the decimal string yields the double nearest to the rounded value, with no
  // multiply/divide step that could drift again.
  const magnitude = Number(`${units}e-${digits}`);
  return amount < 0 ? -magnitude : magnitude;
}

/** Whether a string is a known ISO 4217 code, case-insensitive ('usd' yes, 'XXX' and 'ABC' no). */
export function isCurrencyCode(code: string): boolean {
  if (typeof code !== 'string' || !THREE_LETTERS.test(code)) return false;
  knownCurrencies ??= new Set(Intl.supportedValuesOf('currency'));
  return knownCurrencies.has(code.toUpperCase());
}
