/**
 * The national currency of a country (ISO 3166-1 alpha-2 → ISO 4217), for a new cart's
 * currency when the client names none (commerce.md §3.3). Intl has no region → currency data,
 * so the mapping is kept here, grouped by currency; territories list the currency in use. It
 * covers every code `isCountryCode` accepts, the exceptionally reserved ones (AC, CP, CQ, DG,
 * EA, IC, TA) included; Antarctica (AQ) has no currency.
 */

const BY_CURRENCY: Record<string, string> = {
  EUR: 'AD AT AX BE BG BL CP CY DE EA EE ES FI FR GF GP GR HR IC IE IT LT LU LV MC ME MF MQ MT NL PM PT RE SI SK SM TF VA XK YT',
  USD: 'US AS BQ DG EC FM GU IO MH MP PR PW SV TC TL UM VG VI',
  GBP: 'GB CQ GG GS IM JE',
  SHP: 'SH AC TA',
  AUD: 'AU CC CX HM KI NF NR TV',
  NZD: 'NZ CK NU PN TK',
  CHF: 'CH LI',
  DKK: 'DK FO GL',
  NOK: 'NO BV SJ',
  XOF: 'BF BJ CI GW ML NE SN TG',
  XAF: 'CF CG CM GA GQ TD',
  XCD: 'AG AI DM GD KN LC MS VC',
  XPF: 'NC PF WF',
  XCG: 'CW SX',
  MAD: 'MA EH',
  ILS: 'IL PS',
};

/** Countries whose currency code is the only one they use, as `country currency` pairs. */
const SINGLE =
  'AE AED AF AFN AL ALL AM AMD AO AOA AR ARS AW AWG AZ AZN BA BAM BB BBD BD BDT BH BHD BI BIF BM BMD BN BND BO BOB BR BRL ' +
  'BS BSD BT BTN BW BWP BY BYN BZ BZD CA CAD CD CDF CL CLP CN CNY CO COP CR CRC CU CUP CV CVE CZ CZK DJ DJF DO DOP DZ DZD ' +
  'EG EGP ER ERN ET ETB FJ FJD FK FKP GE GEL GH GHS GI GIP GM GMD GN GNF GT GTQ GY GYD HK HKD HN HNL HT HTG HU HUF ID IDR ' +
  'IN INR IQ IQD IR IRR IS ISK JM JMD JO JOD JP JPY KE KES KG KGS KH KHR KM KMF KP KPW KR KRW KW KWD KY KYD KZ KZT LA LAK ' +
  'LB LBP LK LKR LR LRD LS LSL LY LYD MD MDL MG MGA MK MKD MM MMK MN MNT MO MOP MR MRU MU MUR MV MVR MW MWK MX MXN MY MYR ' +
  'MZ MZN NA NAD NG NGN NI NIO NP NPR OM OMR PA PAB PE PEN PG PGK PH PHP PK PKR PL PLN PY PYG QA QAR RO RON RS RSD RU RUB ' +
  'RW RWF SA SAR SB SBD SC SCR SD SDG SE SEK SG SGD SL SLE SO SOS SR SRD SS SSP ST STN SY SYP SZ SZL TH THB TJ TJS ' +
  'TM TMT TN TND TO TOP TR TRY TT TTD TW TWD TZ TZS UA UAH UG UGX UY UYU UZ UZS VE VES VN VND VU VUV WS WST YE YER ZA ZAR ' +
  'ZM ZMW ZW ZWG';

let byCountry: ReadonlyMap<string, string> | undefined;

function table(): ReadonlyMap<string, string> {
  if (byCountry) return byCountry;
  const map = new Map<string, string>();
  for (const [currency, countries] of Object.entries(BY_CURRENCY)) {
    for (const country of countries.split(' ')) map.set(country, currency);
  }
  const pairs = SINGLE.split(' ');
  for (let i = 0; i + 1 < pairs.length; i += 2) map.set(pairs[i]!, pairs[i + 1]!);
  byCountry = map;
  return map;
}

/**
 * The currency a country uses, or undefined when unknown (Antarctica, unknown codes).
 * @example nationalCurrency('de') // 'EUR'
 */
export function nationalCurrency(country: string | null | undefined): string | undefined {
  if (!country) return undefined;
  return table().get(country.toUpperCase());
}
