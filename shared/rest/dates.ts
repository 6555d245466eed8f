/**
 * Dates and times in API output and input (conventions.md section 13): the zone in effect,
 * ISO 8601 output with the zone's offset, and date inputs (ISO 8601 or a shorthand) resolved
 * to the first or last moment of their period on the local calendar.
 *
 * Calendar arithmetic is done on "wall" numbers: local date-times written as if they were UTC
 * epoch ms, so adding a day or a month never meets daylight-saving time. Only the final step,
 * wall time to instant, asks the zone (through luxon) which offsets apply; that is where 23- and
 * 25-hour days, missing midnights and repeated hours are decided, in one place.
 */
import { IANAZone } from 'luxon';
import { InvalidInputError } from '../http/errors';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Largest `x` of the `+x` / `-x` day shorthand (conventions.md section 20). */
export const MAX_DAY_OFFSET = 9999;

// ---------------------------------------------------------------------------------------------
// Zones

/** UTC offset in ms at an instant. */
type OffsetAt = (instant: number) => number;

const UTC_OFFSET: OffsetAt = () => 0;

/** A validated zone: its spelling for output, whether it is UTC, and its offsets. */
interface KnownZone {
  name: string;
  utc: boolean;
  offsets: OffsetAt;
}

// Keyed by the lower-cased name so that case variants of one zone share an entry; only valid
// names are stored, so the map stays bounded by the zone database however clients spell things.
const knownZones = new Map<string, KnownZone>();

// Exact spellings of the names Intl lists (ICU's canonical ids, e.g. America/New_York), plus UTC,
// which Intl never lists.
let listedSpellings: Map<string, string> | undefined;

function listedSpelling(key: string): string | undefined {
  listedSpellings ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]));
  return listedSpellings.get(key);
}

// Path segments whose IANA spelling the rules in ianaSpelling cannot guess.
const SEGMENT_SPELLINGS: Record<string, string> = {
  etc: 'Etc',
  yap: 'Yap',
  knox_in: 'Knox_IN',
  'gb-eire': 'GB-Eire',
  'nz-chat': 'NZ-CHAT',
  'w-su': 'W-SU',
  comodrivadavia: 'ComodRivadavia',
  denoronha: 'DeNoronha',
  easterisland: 'EasterIsland',
  bajanorte: 'BajaNorte',
  bajasur: 'BajaSur',
};

/**
 * IANA spelling of a lower-cased zone name that Intl accepts but does not list: its newer names
 * and links (`asia/kolkata` → `Asia/Kolkata`, `us/eastern` → `US/Eastern`, `etc/utc` →
 * `Etc/UTC`). Intl itself would answer ICU's older ids (`Asia/Calcutta`), which clients did not
 * send and may not recognise, and no API lists the links, so their capitals are rebuilt here.
 */
function ianaSpelling(key: string): string {
  return key
    .split('/')
    .map((segment) => {
      const known = SEGMENT_SPELLINGS[segment];
      if (known !== undefined) return known;
      // EST5EDT, GMT+0, GMT-0 and the Etc/GMT±n family; UTC, CET, US, NSW and the like.
      if (/\d/.test(segment) || /^[a-z]{1,3}$/.test(segment)) return segment.toUpperCase();
      return segment.replace(/(^|[_-])([a-z])/g, (_, separator: string, letter: string) => separator + letter.toUpperCase());
    })
    .join('/');
}

/** The zone for a name (IANA or `UTC`, any case), or undefined when there is none. */
function knownZone(name: string): KnownZone | undefined {
  const key = name.toLowerCase();
  const cached = knownZones.get(key);
  if (cached !== undefined) return cached;
  // UTC, every account's default zone, is what the steps below make of `utc` (Intl's `UTC`, listed
  // spelling `UTC`), without them: the first Intl zone lookup and zone list cost tens of
  // milliseconds, which a start's first answer would otherwise pay.
  if (key === 'utc') {
    const zone: KnownZone = { name: 'UTC', utc: true, offsets: UTC_OFFSET };
    knownZones.set(key, zone);
    return zone;
  }
  // Intl also accepts raw offsets (`+05:00`) as zones; the contract allows only names.
  if (!/^[a-z][a-z0-9_+\-/]*$/.test(key)) return undefined;
  let icuId: string;
  try {
    icuId = new Intl.DateTimeFormat('en-US', { timeZone: key }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  // Intl folds every name of UTC (Etc/UTC, Etc/Universal, Zulu, and the GMT family, as
  // ECMA-402 requires) into `UTC`; those are written with `Z`.
  const utc = icuId === 'UTC';
  let offsets = UTC_OFFSET;
  if (!utc) {
    const iana = IANAZone.create(icuId);
    if (!iana.isValid) return undefined;
    // Offsets before standard time (local mean time) have seconds; whole minutes keep the
    // written `±hh:mm` and the local time consistent with each other.
    offsets = (instant) => Math.round(iana.offset(instant)) * MINUTE_MS;
  }
  const zone: KnownZone = { name: listedSpelling(key) ?? ianaSpelling(key), utc, offsets };
  knownZones.set(key, zone);
  return zone;
}

/** The zone for a name, or 400 invalid_input on the `timezone` parameter. */
function requireZone(name: string): KnownZone {
  const zone = typeof name === 'string' ? knownZone(name) : undefined;
  if (zone === undefined) {
    throw new InvalidInputError('The parameter timezone must be an IANA time zone name or UTC.', {
      parameter: 'timezone',
      reason: 'invalid',
    });
  }
  return zone;
}

/** Canonical zone name for a `timezone` value: an IANA name or `UTC`, matched case-insensitively (e.g. 'america/new_york' → 'America/New_York'). */
export function resolveTimeZone(name: string): string {
  return requireZone(name).name;
}

/** The canonical spelling of a zone name (IANA or `UTC`, any case), or undefined when there is no such zone. */
export function timeZoneName(name: string): string | undefined {
  return knownZone(name)?.name;
}

/** The zone in effect for a request: `timezone` query parameter if present and non-empty (validated), else the account default. */
export function zoneInEffect(query: Record<string, string>, accountDefault: string): string {
  const requested = query.timezone;
  if (requested !== undefined && requested !== '') return resolveTimeZone(requested);
  // The account default was validated when the setting was written; only its spelling is
  // normalised here, and a stored value this runtime no longer knows is passed on unchanged.
  return knownZone(accountDefault)?.name ?? accountDefault;
}

function fixedOffset(offsetMs: number): OffsetAt {
  return () => offsetMs;
}

// ---------------------------------------------------------------------------------------------
// Output

/** ISO 8601, second precision, in `zone`: `2026-11-21T14:05:09Z` when zone is UTC, otherwise `±hh:mm` (Europe/London in winter gives `+00:00`). */
export function formatTimestamp(epochMs: number, zone: string): string {
  const known = requireZone(zone);
  // Floor, not round: the output must never show a second that has not started yet.
  const seconds = Math.floor(epochMs / 1000) * 1000;
  if (known.utc) return `${new Date(seconds).toISOString().slice(0, -5)}Z`;
  const offset = known.offsets(seconds);
  return `${new Date(seconds + offset).toISOString().slice(0, -5)}${offsetLabel(offset)}`;
}

function offsetLabel(offsetMs: number): string {
  const minutes = Math.abs(offsetMs) / MINUTE_MS;
  const sign = offsetMs < 0 ? '-' : '+';
  return `${sign}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** An epoch-ms instant as `2026-11-21T14:05:09Z` (UTC), or null. */
export function timestamp(epochMs: number | undefined | null): string | null {
  if (epochMs === undefined || epochMs === null) return null;
  return formatTimestamp(epochMs, 'UTC');
}

// ---------------------------------------------------------------------------------------------
// Input

/** Options of parseDateInput. */
export interface DateInputOptions {
  /** `first` moment of the period (for `date_start`) or its `last` millisecond (all others). */
  edge: 'first' | 'last';
  /** Zone for values without an offset: the `timezone` parameter, else the account default. */
  zone: string;
  /** Epoch ms from the platform clock; shorthands such as `today` are relative to it. */
  now: number;
  /** Parameter or property name, for the error. */
  name: string;
  /** Whether `name` is a query parameter or a body property (the error's meta key). */
  kind: 'parameter' | 'property';
}

/** Resolves the edge for a named input: 'first' for `date_start`, 'last' for every other date input. */
export function edgeFor(name: string): 'first' | 'last' {
  return name === 'date_start' ? 'first' : 'last';
}

/** A period on the local calendar, as wall times: `start` inclusive, `end` exclusive. */
interface WallPeriod {
  start: number;
  end: number;
}

const OFFSET = '(z|[+-]\\d{2}(?::?\\d{2})?)';
// A date without a time may only carry `Z` or `±hh:mm`: `2026-11-05` must stay a day, not
// November 2026 at offset -05.
const DATE_OFFSET = '(z|[+-]\\d{2}:\\d{2})';
const FULL_TIMESTAMP = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})t(\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?${OFFSET}?$`, 'i');
const PARTIAL_TIME = new RegExp(`^(\\d{4})-(\\d{2})-(\\d{2})t(\\d{2})(?::(\\d{2}))?${OFFSET}?$`, 'i');
const PARTIAL_DATE = new RegExp(`^(\\d{4})(?:-(\\d{2})(?:-(\\d{2}))?)?${DATE_OFFSET}?$`, 'i');
// A `+` sent unencoded in a query string arrives as a space (conventions.md section 13).
const DAY_OFFSET = /^([+\- ])(\d+)$/;

const NAMED_PERIODS: Record<string, (today: number) => WallPeriod> = {
  today: (today) => days(today, 1),
  yesterday: (today) => days(today - DAY_MS, 1),
  this_week: (today) => days(sundayOnOrBefore(today), 7),
  last_week: (today) => days(sundayOnOrBefore(today) - 7 * DAY_MS, 7),
  this_month: (today) => months(today, 0),
  last_month: (today) => months(today, -1),
  this_year: (today) => years(today, 0),
  last_year: (today) => years(today, -1),
};

/** Parses a date input (ISO 8601 or a shorthand of conventions.md §13) to epoch ms. */
export function parseDateInput(value: string, options: DateInputOptions): number {
  const invalid = () =>
    new InvalidInputError(
      `The ${options.kind} ${options.name} must be an ISO 8601 date or time, or a date shorthand such as today or -7.`,
      { [options.kind]: options.name, reason: 'invalid' },
    );
  if (typeof value !== 'string') throw invalid();

  const full = FULL_TIMESTAMP.exec(value);
  if (full) {
    const [, y, mo, d, h, mi, s, fraction, offset] = full;
    const wall = checkedWall(+y!, +mo!, +d!, +h!, +mi!, +s!);
    if (wall === undefined) throw invalid();
    // Taken exactly whatever the edge; digits past the millisecond are dropped.
    const ms = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0').slice(0, 3));
    if (offset !== undefined) {
      const offsetMs = parseOffset(offset);
      if (offsetMs === undefined) throw invalid();
      return wall + ms - offsetMs;
    }
    return exactInstant(wall + ms, requireZone(options.zone).offsets);
  }

  const partial = partialPeriod(value);
  if (partial === null) throw invalid(); // the right shape, but no such date or offset
  const resolved = partial ?? shorthandPeriod(value, options);
  if (resolved === undefined) throw invalid();
  const offsets = resolved.offsets ?? requireZone(options.zone).offsets;
  const { period } = resolved;
  return options.edge === 'first' ? firstInstant(period.start, offsets) : lastInstant(period.end, offsets);
}

/**
 * Whether a body value has the form of a date input (ISO 8601 or a shorthand), whatever zone
 * and clock it is later resolved with: the form check of a request schema.
 */
export function isDateInput(value: string): boolean {
  try {
    parseDateInput(value, { edge: 'last', zone: 'UTC', now: 0, name: 'value', kind: 'property' });
    return true;
  } catch {
    return false;
  }
}

/** The period of `yyyy`, `yyyy-MM`, `yyyy-MM-dd`, `yyyy-MM-ddTHH` or `yyyy-MM-ddTHH:mm`, each with an optional offset. */
function partialPeriod(value: string): { period: WallPeriod; offsets?: OffsetAt } | null | undefined {
  let period: WallPeriod | undefined;
  let offset: string | undefined;
  const time = PARTIAL_TIME.exec(value);
  const date = time ? null : PARTIAL_DATE.exec(value);
  if (time) {
    const [, y, mo, d, h, mi] = time;
    offset = time[6];
    const start = checkedWall(+y!, +mo!, +d!, +h!, mi === undefined ? 0 : +mi);
    if (start !== undefined) period = { start, end: start + (mi === undefined ? 60 : 1) * MINUTE_MS };
  } else if (date) {
    const [, y, mo, d] = date;
    offset = date[4];
    const start = checkedWall(+y!, mo === undefined ? 1 : +mo, d === undefined ? 1 : +d);
    if (start !== undefined) {
      if (d !== undefined) period = days(start, 1);
      else if (mo !== undefined) period = months(start, 0);
      else period = years(start, 0);
    }
  } else {
    return undefined; // not this syntax: try the shorthands
  }
  if (period === undefined) return null;
  if (offset === undefined) return { period };
  const offsetMs = parseOffset(offset);
  return offsetMs === undefined ? null : { period, offsets: fixedOffset(offsetMs) };
}

/** The period of a named shorthand or `±x` days, relative to today in the zone. */
function shorthandPeriod(value: string, options: DateInputOptions): { period: WallPeriod; offsets: OffsetAt } | undefined {
  const named = Object.hasOwn(NAMED_PERIODS, value.toLowerCase()) ? NAMED_PERIODS[value.toLowerCase()] : undefined;
  const dayOffset = named ? null : DAY_OFFSET.exec(value);
  if (!named && !dayOffset) return undefined;
  let shift = 0;
  if (dayOffset) {
    shift = Number(dayOffset[2]);
    if (shift > MAX_DAY_OFFSET) return undefined;
    if (dayOffset[1] === '-') shift = -shift;
  }
  const offsets = requireZone(options.zone).offsets;
  const today = startOfWallDay(options.now + offsets(options.now));
  return { period: named ? named(today) : days(today + shift * DAY_MS, 1), offsets };
}

/** Zone offset in ms from `Z`, `±hh`, `±hhmm` or `±hh:mm`; undefined when out of range. */
function parseOffset(text: string): number | undefined {
  if (text === 'z' || text === 'Z') return 0;
  const digits = text.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (text.startsWith('-') ? -1 : 1) * (hours * 60 + minutes) * MINUTE_MS;
}

/** Wall time of a local date-time, or undefined when a field is out of range (month 13, Feb 30, 24:00). */
function checkedWall(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number | undefined {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > new Date(wallTime(year, month + 1, 0)).getUTCDate()) return undefined;
  return wallTime(year, month, day, hour, minute, second);
}

/** Wall time from fields; out-of-range fields roll over, as in Date.UTC (which would misread years 0–99). */
function wallTime(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function startOfWallDay(wall: number): number {
  return Math.floor(wall / DAY_MS) * DAY_MS;
}

function days(startDay: number, count: number): WallPeriod {
  return { start: startDay, end: startDay + count * DAY_MS };
}

/** Weeks run Sunday to Saturday (conventions.md section 13). */
function sundayOnOrBefore(day: number): number {
  return day - new Date(day).getUTCDay() * DAY_MS;
}

/** The calendar month containing `day`, shifted by `shift` months. */
function months(day: number, shift: number): WallPeriod {
  const date = new Date(day);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1 + shift;
  return { start: wallTime(year, month, 1), end: wallTime(year, month + 1, 1) };
}

/** The calendar year containing `day`, shifted by `shift` years. */
function years(day: number, shift: number): WallPeriod {
  const year = new Date(day).getUTCFullYear() + shift;
  return { start: wallTime(year, 1, 1), end: wallTime(year + 1, 1, 1) };
}

// ---------------------------------------------------------------------------------------------
// Wall time to instant

/** Offsets the zone uses around a wall time: enough to see both sides of any transition nearby. */
function nearbyOffsets(wall: number, offsets: OffsetAt): number[] {
  const seen = new Set<number>();
  // ±2 days covers every real transition, including Samoa skipping a whole day in 2011.
  for (const probe of [-2, -1, 0, 1, 2]) seen.add(offsets(wall + probe * DAY_MS));
  return [...seen];
}

/** Every instant whose local time in the zone is `wall`: one normally, two in a repeated hour, none in a skipped one. */
function instantsAt(wall: number, offsets: OffsetAt): number[] {
  return nearbyOffsets(wall, offsets)
    .map((offset) => wall - offset)
    .filter((instant) => wall - offsets(instant) === instant);
}

/** The transition instant that skips over `wall`, found by bisection between the two offsets' readings. */
function gapEnd(wall: number, offsets: OffsetAt): number {
  const candidates = nearbyOffsets(wall, offsets);
  let before = wall - Math.max(...candidates); // still on the old offset
  let after = wall - Math.min(...candidates); // already on the new one
  const oldOffset = offsets(before);
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (offsets(middle) === oldOffset) before = middle;
    else after = middle;
  }
  return after;
}

/** First instant whose local time is at or after `wall`: the start of a period (a missing midnight gives the first instant that exists). */
function firstInstant(wall: number, offsets: OffsetAt): number {
  const instants = instantsAt(wall, offsets);
  return instants.length > 0 ? Math.min(...instants) : gapEnd(wall, offsets);
}

/** Final millisecond whose local time is before `endWall`: the last moment of a period, which in a repeated hour is its second pass. */
function lastInstant(endWall: number, offsets: OffsetAt): number {
  const instants = instantsAt(endWall - 1, offsets);
  return instants.length > 0 ? Math.max(...instants) : gapEnd(endWall - 1, offsets) - 1;
}

/**
 * A full local timestamp without an offset. A repeated time takes its earlier instant, and a
 * skipped one moves forward by the length of the gap (the usual "compatible" reading), so
 * 02:30 on a spring-forward night is 03:30 in the new offset.
 */
function exactInstant(wall: number, offsets: OffsetAt): number {
  const instants = instantsAt(wall, offsets);
  if (instants.length > 0) return Math.min(...instants);
  const transition = gapEnd(wall, offsets);
  return wall - offsets(transition - 1);
}

// ---------------------------------------------------------------------------------------------
// Body timestamps with a required offset

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

/**
 * Parses an ISO 8601 timestamp with an explicit offset (`Z` or `±hh[:mm]`) from a body
 * property; anything else is 400 invalid_input naming the property.
 */
export function parseTimestampInput(value: unknown, property: string): number {
  if (typeof value === 'string' && ISO_TIMESTAMP.test(value)) {
    const normalized = value.replace(/([+-]\d{2})$/, '$1:00').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
    const ms = Date.parse(normalized);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new InvalidInputError(`The property ${property} must be an ISO 8601 timestamp with an offset.`, {
    property,
    reason: 'invalid',
  });
}
