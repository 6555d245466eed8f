/**
 * The e2e helper's check of answers against the description (test/support/openapi-responses.ts):
 * what it accepts and what it refuses, so the check that runs in every e2e file can fail.
 */
import { describe, expect, it } from 'vitest';
import { checkResponse, responseCounts } from '../support/openapi-responses';

const base = 'http://localhost:4000/api/v1';
const json = 'application/json';
const product = {
  object: 'product', url: `${base}/products/p1`, product_id: 'p1', name: 'P', headline: null, description: null, type: 'digital', active: true, hidden: false, deleted: false,
  prices: [{ currency: 'USD', price: 19 }], price: 19, currency: 'USD', tax_code: null, subscription_plan: null, license_service: null, has_license_service: false, images: [],
  test: true, account_id: 'A1', meta: { any: ['thing'] }, date_created: '2026-11-21T14:05:09Z', date_modified: '2026-11-21T14:05:09+01:00',
};

describe('checking API answers against the description', () => {
  it('accepts an answer that matches its route, status and schema, and counts it', async () => {
    const before = responseCounts().validated;
    await checkResponse('GET', `${base}/products/p1`, 200, json, JSON.stringify(product));
    await checkResponse('GET', `${base}/products/p1?expand=license_service`, 200, json, JSON.stringify({ ...product, license_service: null }));
    await checkResponse('GET', `${base}/products?limit=1`, 200, json, JSON.stringify({ object: 'list', total_items: 1, total_pages: 1, current_page: 1, next_page_url: null, next_page_offset: null, previous_page_url: null, previous_page_offset: null, current_page_url: `${base}/products?limit=1`, data: [product] }));
    await checkResponse('GET', `${base}/nothing/here`, 404, json, JSON.stringify({ error: { type: 'not_found', code: 'resource_not_found', message: 'No.', reference: 'R1', status: 404, meta: null } }));
    expect(responseCounts().validated - before).toBe(4);
  });

  it('lets answers without JSON pass: 204, a PDF, a page, other paths', async () => {
    const before = responseCounts();
    await checkResponse('DELETE', `${base}/products/p1`, 204, null, '');
    await checkResponse('GET', `${base}/orders/o1`, 200, 'application/pdf', '%PDF-1.7');
    await checkResponse('GET', 'http://localhost:4000/signin/', 200, 'text/html; charset=utf-8', '<!DOCTYPE html>');
    await checkResponse('GET', 'http://localhost:4000/_local/health', 200, json, '{"status":"ok"}');
    expect(responseCounts().validated).toBe(before.validated);
    expect(responseCounts().passed_through - before.passed_through).toBe(4);
  });

  it('refuses a wrong type, a missing property, an unlisted status and a bad error envelope, saying where', async () => {
    await expect(checkResponse('GET', `${base}/products/p1`, 200, json, JSON.stringify({ ...product, price: '19.00' }))).rejects.toThrow(/GET \/products\/\{product_id\} 200 does not match the description \(Product\):\n {2}\/price must be number/);
    const { name: _, ...nameless } = product;
    await expect(checkResponse('GET', `${base}/products/p1`, 200, json, JSON.stringify(nameless))).rejects.toThrow(/must have required property 'name'/);
    // show and hide may trim any property: only the types of what is there are checked.
    await checkResponse('GET', `${base}/products/p1?show=name`, 200, json, JSON.stringify({ url: product.url, name: 'P' }));
    await expect(checkResponse('GET', `${base}/products/p1?show=name`, 200, json, JSON.stringify({ url: product.url, name: 7 }))).rejects.toThrow(/\/name must be string/);
    await expect(checkResponse('GET', `${base}/products/p1`, 201, json, JSON.stringify(product))).rejects.toThrow(/answered 201, which its description does not list/);
    await expect(checkResponse('GET', `${base}/products/p1`, 200, json, JSON.stringify({ ...product, license_service: 'not a url' }))).rejects.toThrow(/license_service/);
    await expect(checkResponse('POST', `${base}/products`, 400, json, JSON.stringify({ error: { code: 'invalid_input', status: '400' } }))).rejects.toThrow(/Error/);
    await expect(checkResponse('GET', `${base}/products/p1`, 200, json, '{not json')).rejects.toThrow(/not JSON/);
  });
});
