/**
 * Type checks of the generated client (checked by `npm run typecheck`, never run): answers are
 * typed field by field from the description. Each `@ts-expect-error` below must stay an error: if
 * a response ever became `any`, `unknown` or a free-for-all record, the line would compile and tsc
 * would report the directive as unused.
 */
import { cartwheelClient, eachItem, type Notification, type Schema } from '../../packages/client/src/index';

export async function typedAnswers(): Promise<void> {
  const cartwheel = cartwheelClient({ baseUrl: 'http://localhost:4000/api/v1', token: 'sk.test.x' });
  const { data: product } = await cartwheel.GET('/products/{product_id}', { params: { path: { product_id: 'p1' } } });
  if (!product) return;
  const name: string = product.name;
  const headline: string | null = product.headline;
  const kind: 'product' = product.object;
  // @ts-expect-error a misspelled field of the answer does not exist
  const misspelled = product.nmae;
  // @ts-expect-error a nullable field is not a plain string
  const notNullable: string = product.headline;
  // @ts-expect-error the price is a number, not a string
  const price: string = product.prices[0]!.price;

  const { data: orders } = await cartwheel.GET('/orders', { params: { query: { limit: 10 } } });
  const cursor: string | null | undefined = orders?.next_page_after_item;
  // @ts-expect-error a cursor list has no offset fields
  const offset = orders?.next_page_offset;
  for await (const order of eachItem((query) => cartwheel.GET('/orders', { params: { query } }))) {
    const status: string = order.payment_status;
    // @ts-expect-error orders have no such field
    void order.order_total;
    void status;
  }

  // @ts-expect-error an unknown path is refused
  await cartwheel.GET('/prodcuts');

  const order: Schema<'Order'> | undefined = undefined;
  void order;
  const body = {} as Notification<'order:created'>;
  const type: 'order:created' = body.type;
  // @ts-expect-error a notification's data is the order: its total is a number
  const total: string = body.data.total;

  // Action routes are typed too: the resource they answer, or the shape read from their code.
  const { data: published } = await cartwheel.POST('/invoices/{invoice_id}/publish', { params: { path: { invoice_id: 'i1' } } });
  const invoiceKind: 'invoice' | undefined = published?.object;
  // @ts-expect-error the published invoice has no such field
  void published?.invoice_idd;
  const { data: link } = await cartwheel.POST('/invoices/{invoice_id}/links', { params: { path: { invoice_id: 'i1' } } });
  const seconds: number | undefined = link?.expires_in_seconds;
  // @ts-expect-error the pay link's answer has no such field
  void link?.link_uri;
  const { data: options } = await cartwheel.GET('/payments/options');
  const cardTypes: string[] | undefined = options?.card_types;
  // @ts-expect-error the payment options name their card types `card_types`
  void options?.cardTypes;
  void [name, headline, kind, misspelled, notNullable, price, cursor, offset, type, total, invoiceKind, seconds, cardTypes];
}
