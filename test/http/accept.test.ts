/**
 * `Accept` negotiation (conventions.md §4): JSON whatever `Accept` says, except a request that
 * asks for `application/pdf` first and prefers it; and the action wrapper that picks between
 * a route's two answers.
 */
import { describe, expect, it } from 'vitest';
import { PDF_TYPE, pdfResult, prefersMediaType, withPrintable } from '../../shared/http/accept';
import { toResponse } from '../../shared/http/response';
import type { ApiContext, ApiResult } from '../../shared/http/types';

describe('prefersMediaType', () => {
  const cases: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ['', false],
    ['application/pdf', true],
    ['Application/PDF', true],
    ['application/pdf; charset=binary', true],
    ['application/pdf, application/json', true],
    ['application/pdf, */*;q=0.8', true],
    ['application/pdf;q=0.5', true],
    ['application/pdf;q=0.1, application/json', false],
    ['application/pdf;q=0.5, application/json;q=0.5', true],
    ['application/pdf;q=0.5, application/json;q=0.6', false],
    ['application/pdf;q=0', false],
    ['application/pdf;q=2', false],
    ['application/pdf;q=abc', false],
    ['application/json, application/pdf', false],
    ['application/json;q=0.1, application/pdf', false],
    ['*/*', false],
    ['application/*', false],
    ['text/html', false],
    ['image/png, text/csv', false],
    ['application/pdfx', false],
    [' , application/pdf', true],
  ];
  it.each(cases)('%j → %s', (accept, pdf) => {
    expect(prefersMediaType(accept, PDF_TYPE)).toBe(pdf);
  });
});

describe('withPrintable', () => {
  const json = async (): Promise<ApiResult> => ({ status: 200, body: { object: 'order' } });
  const printable = async (): Promise<ApiResult> => pdfResult(Buffer.from('%PDF-1.3'), 'receipt-1.pdf');
  const contextWith = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as unknown as ApiContext;
  const action = withPrintable(json, printable);

  it('answers JSON by default and for any Accept that does not prefer PDF, saying it varies by Accept', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'image/png', 'application/pdf;q=0.1, application/json']) {
      const result = await action(contextWith(accept));
      expect(result.body, String(accept)).toEqual({ object: 'order' });
      expect(result.raw).toBeUndefined();
      expect(result.headers).toMatchObject({ Vary: 'Accept' });
    }
  });

  it('answers the printable form as application/pdf, inline, with a safe file name', async () => {
    const result = await action(contextWith('application/pdf'));
    expect(result.raw?.contentType).toBe('application/pdf');
    expect(Buffer.from(result.raw!.body).toString()).toBe('%PDF-1.3');
    expect(result.headers).toEqual({ 'Content-Disposition': 'inline; filename="receipt-1.pdf"', Vary: 'Accept' });
    expect(pdfResult(Buffer.alloc(0), 'a"b/c\r\n.pdf').headers?.['Content-Disposition']).toBe('inline; filename="a_b_c__.pdf"');
  });

  it('sends bytes base64-encoded and flagged, as API Gateway carries binary bodies, and text as it is', () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x80]);
    const binary = toResponse(pdfResult(bytes.subarray(0), 'x.pdf'), 'req', undefined, undefined);
    expect(binary).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'Content-Type': 'application/pdf' } });
    expect(Buffer.from(binary.body!, 'base64').equals(bytes)).toBe(true);
    // A view into a larger buffer sends only its own bytes.
    const view = Buffer.concat([Buffer.from('junk'), bytes]).subarray(4);
    expect(Buffer.from(toResponse(pdfResult(view, 'x.pdf'), 'req', undefined, undefined).body!, 'base64').equals(bytes)).toBe(true);
    const text = toResponse({ status: 200, raw: { body: 'var a = 1;', contentType: 'text/javascript' } }, 'req', undefined, undefined);
    expect(text.body).toBe('var a = 1;');
    expect(text.isBase64Encoded).toBeUndefined();
  });
});

describe('the API description', () => {
  it('lists application/pdf beside JSON for the order read only', async () => {
    const { openApiDocument } = await import('../../shared/rest/openapi');
    const { routes } = await import('../../shared/app/routes');
    const { documentedFamilies } = await import('../../handlers/http/openapi');
    const document = openApiDocument(routes, documentedFamilies(), 'https://api.example.test/api/v1') as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
    const contentOf = (path: string, method = 'get') => Object.keys(document.paths[path]![method]!.responses['200']!.content ?? {});
    expect(contentOf('/orders/{order_id}')).toEqual(['application/json', 'application/pdf']);
    expect(contentOf('/orders')).toEqual(['application/json']);
    expect(contentOf('/orders/{order_id}/items/{item_id}')).toEqual(['application/json']);
  });
});
