/**
 * Lambda entry point of the `openapi` family: `GET /api/v1/openapi.json` (conventions.md §19a),
 * generated from the route table and every family's declared request bodies.
 */
import { routes, type FamilyName } from '../../infra/routes';
import { defineFamily, lambdaHandler, type FamilyActions } from '../../shared/http/pipeline';
import { openApiDocument } from '../../shared/rest/openapi';
import { family as auths } from './auths';
import { family as carts } from './carts';
import { family as catalog } from './catalog';
import { family as customers } from './customers';
import { family as orders } from './orders';
import { family as payments } from './payments';
import { family as promotions } from './promotions';
import { family as settings } from './settings';
import { family as shipping } from './shipping-methods';

/**
 * Families whose routes take multipart uploads, not JSON bodies: the route table alone
 * describes them (`upload`), and importing their actions would pull sharp into this bundle.
 */
export const UPLOAD_ONLY_FAMILIES: readonly FamilyName[] = ['images'];

/** Every family whose actions the document describes (a test checks none is missing). */
export function documentedFamilies(): readonly FamilyActions[] {
  return [auths, carts, catalog, customers, orders, payments, promotions, settings, shipping, family];
}

const documents = new Map<string, Record<string, unknown>>();

export const family = defineFamily('openapi', {
  'GET /api/v1/openapi.json': async (context) => {
    const serverUrl = context.baseUrl.replace(/\/$/, '');
    let document = documents.get(serverUrl);
    if (document === undefined) {
      document = openApiDocument(routes, documentedFamilies(), serverUrl);
      // Hosts differ only between the API host and app hosts: a handful, but never unbounded.
      if (documents.size >= 16) documents.clear();
      documents.set(serverUrl, document);
    }
    return { status: 200, body: document };
  },
});

export const handler = lambdaHandler(family);
