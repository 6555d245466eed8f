/**
 * The printable document: what a receipt or an invoice PDF shows, as plain data with amounts in
 * major units of one currency (commerce.md §1.2) and instants as epoch milliseconds. Mappings
 * build it from records (`orderReceiptDocument`, `invoiceDocument`); the renderer (`./pdf.ts`)
 * formats money, dates and percentages in `locale` and `zone` and lays it out. Nothing here knows
 * about orders or invoices, so a new kind of sale prints by mapping onto it.
 */

/** An address, already reduced to the lines it prints as (name, company, street, place, country). */
export type PrintableAddress = readonly string[];

/** A party: the seller (the account) or the buyer (the sale's customer). Empty parts are left out. */
export interface PrintableParty {
  name: string | null;
  companyName?: string | null;
  email?: string | null;
  phone?: string | null;
  taxNumber?: string | null;
  website?: string | null;
  address?: PrintableAddress;
}

/** One product line (commerce.md §1.3): the amounts are the line's own, never recomputed. */
export interface PrintableLine {
  name: string;
  /** The product or custom line id, printed small under the name. */
  reference?: string | null;
  quantity: number;
  /** The unit price before any discount (`price_original`). */
  unitPrice: number;
  /** The line's promotion discount (0: none). */
  discount: number;
  /** The tax rate as a fraction (0.2 = 20 %). */
  taxRate: number;
  /** The line's tax (`tax`). */
  tax: number;
  /** The line amount after discount (`subtotal`): excluding tax, or including it when the sale is tax-inclusive. */
  amount: number;
}

/** The shipping line, when the sale has one. */
export interface PrintableShipping {
  name: string;
  amount: number;
  taxRate: number;
  tax: number;
}

/** The sale's totals (commerce.md §1.3), as stored. */
export interface PrintableTotals {
  /** Sum of the lines before discount (`subtotal_original`). */
  subtotalOriginal: number;
  discount: number;
  /** The promotion code the discount came from, if any. */
  promotionCode?: string | null;
  /** Sum of the lines after discount (`subtotal`). */
  subtotal: number;
  shipping: number;
  tax: number;
  /** True when prices contain tax: tax is then shown as included, not added. */
  taxInclusive: boolean;
  total: number;
}

/** A payment made toward the document (a receipt's card payment; an invoice's payments so far). */
export interface PrintablePayment {
  dateMs: number;
  /** How it was paid, e.g. `Visa 4242` (never a card number) or `Card`. */
  method: string;
  /** The payment's id or reference. */
  reference?: string | null;
  amount: number;
}

/** A refund made so far. */
export interface PrintableRefund {
  dateMs: number;
  reference: string;
  reason?: string | null;
  /** What was refunded, e.g. `2 × E-book`; empty for refunds by amount. */
  items?: readonly string[];
  amount: number;
}

/** A license code of one line (licenses.md §7), or the note that it follows. */
export interface PrintableLicense {
  /** The line it belongs to. */
  itemName: string;
  /** The service's label (`Serial number`). */
  label: string;
  /** The code(s), one per entry, printed whole; empty while the code has not been issued. */
  codes: readonly string[];
  /** The service's instructions as plain text (paragraphs separated by blank lines), or null. */
  instructions: string | null;
  /** Shown instead of codes (`The code will follow by email.`). */
  note?: string | null;
}

/** One line of the balance under the totals (`Paid`, `Refunded`, `Remaining`), with `strong` for the last word. */
export interface PrintableBalance {
  label: string;
  amount: number;
  strong?: boolean;
}

/** A receipt or an invoice, ready to print. */
export interface PrintableDocument {
  /** `Receipt`, `Invoice`: the heading and the document title. */
  title: string;
  /** The document's number: the order id, the invoice id. */
  number: string;
  /** Test-mode documents carry a banner saying no real payment was taken. */
  test: boolean;
  /** ISO 4217 code of every amount. */
  currency: string;
  /** The locale numbers, money and dates are written in (`en-US`); the wording is English. */
  locale: string;
  /** The IANA zone dates are shown in. */
  zone: string;
  /** Dated facts under the heading, in order: `Date`, `Due`, … (null dates are left out). */
  dates: ReadonlyArray<{ label: string; dateMs: number | null }>;
  /** Other facts under the heading: `Status`, `Order`, … (empty values are left out). */
  facts?: ReadonlyArray<{ label: string; value: string | null }>;
  seller: PrintableParty;
  /** `Bill to`. */
  buyer: PrintableParty | null;
  /** `Ship to`, when the sale ships somewhere. */
  shipTo?: PrintableAddress | null;
  lines: readonly PrintableLine[];
  shipping: PrintableShipping | null;
  totals: PrintableTotals;
  payments: readonly PrintablePayment[];
  refunds: readonly PrintableRefund[];
  /** Lines under the totals: what was paid and refunded, or what remains to pay. */
  balance: readonly PrintableBalance[];
  licenses: readonly PrintableLicense[];
  /** Closing lines (where to ask questions). */
  footer?: readonly string[];
}
