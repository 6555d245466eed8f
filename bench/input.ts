/**
 * What the input layer costs per request: parsing a product-create body with its declared
 * zod schema (tolerance and limits included), next to `JSON.parse` of the same text, and the
 * 64-level depth scan that runs before `JSON.parse`.
 *
 *   npm run bench:input [-- --iterations 200000]
 *
 * Prints microseconds per call and the ratio to JSON.parse (ratios are steadier than times on
 * a noisy machine).
 */
import { parseArgs } from 'node:util';
import { productCreate } from '../shared/modules/catalog/product-schemas';
import { nestsDeeperThan } from '../shared/http/body/json';
import { parseInput } from '../shared/rest/validate';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '200000' } } });
const iterations = Number(values.iterations);

const body = {
  product_id: 'ebook-basic',
  name: 'E-book, basic edition',
  headline: 'The basics, in one evening',
  description: '<p>Everything you need to start.</p>',
  type: 'digital',
  prices: [
    { currency: 'USD', price: '19.00' },
    { currency: 'EUR', price: 18 },
  ],
  subscription_plan: null,
  meta: { campaign: 'spring', tags: ['new', 'popular'] },
};
const text = JSON.stringify(body);

function time(label: string, run: () => unknown): number {
  for (let index = 0; index < iterations / 10; index++) run();
  const started = process.hrtime.bigint();
  for (let index = 0; index < iterations; index++) run();
  const micros = Number(process.hrtime.bigint() - started) / 1000 / iterations;
  console.log(`${label.padEnd(36)} ${micros.toFixed(2)} µs/call`);
  return micros;
}

const json = time('JSON.parse (product body)', () => JSON.parse(text));
const scan = time('depth scan (64 levels)', () => nestsDeeperThan(text, 64));
const schema = time('zod schema parse (productCreate)', () => parseInput(productCreate, JSON.parse(text)));
console.log(`\nscan / JSON.parse: ${(scan / json).toFixed(2)}   schema (incl. JSON.parse) / JSON.parse: ${(schema / json).toFixed(2)}`);
