/**
 * Lambda entry point of the `openapi` family: `GET /api/v1/openapi.json` (conventions.md §19a),
 * generated from the route table and every family's declared request bodies.
 */
import { routes, type FamilyName } from '../../shared/app/routes';
import { deleteImageAction, getImageAction, listImagesAction } from '../../shared/modules/images/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import type { FamilyActions } from '../../shared/http/pipeline';
import { declareAnswer, type Action } from '../../shared/http/types';
import { openApiDocument, type ResponseFacts } from '../../shared/rest/openapi';
import { resources } from '../../shared/app/resources';
import { eventTypes } from '../../shared/modules/events';
import resourceShapes from '../../shared/app/resource-shapes.json';
import answerShapes from '../../shared/app/answer-shapes.json';
import { appActions } from './apps';
import { deleteHostedFunctionAction, getHostedFunctionAction, listHostedFunctionsAction } from '../../shared/modules/functions/actions';
import { family as hosting } from './app-serving';
import { family as auths } from './auths';
import { family as carts } from './carts';
import { family as catalog } from './catalog';
import { family as customers } from './customers';
import { family as events } from './event-subscriptions';
import { family as licenses } from './licenses';
import { family as oauth } from './oauth';
import { family as orders } from './orders';
import { family as payments } from './payments';
import { family as promotions } from './promotions';
import { family as refunds } from './refunds';
import { family as settings } from './settings';
import { family as shipping } from './shipping-methods';
import { family as shipments } from './shipments';
import { family as subscriptions } from './subscriptions';
import { family as reports } from './reports';
import { family as invoices } from './invoices';
import { family as users } from './users';

/**
 * The images family without its upload: the upload route takes `multipart/form-data`, which the
 * route table describes (`body: 'multipart'`), and its action would pull sharp into this bundle.
 */
const imagesWithoutUpload: FamilyActions = {
  family: 'images',
  actions: { 'GET /api/v1/images': listImagesAction, 'GET /api/v1/images/{image_id}': getImageAction, 'DELETE /api/v1/images/{image_id}': deleteImageAction },
};

/** The apps family without its upload (a multipart route, which the route table describes). */
const appsWithoutUpload: FamilyActions = { family: 'apps', actions: appActions };

/** The hosted functions family without its two uploads (multipart routes, which the route table describes). */
const hostedFunctionsWithoutUploads: FamilyActions = {
  family: 'hosted-functions',
  actions: {
    'GET /api/v1/hosted_functions': listHostedFunctionsAction,
    'GET /api/v1/hosted_functions/{hosted_function_id}': getHostedFunctionAction,
    'DELETE /api/v1/hosted_functions/{hosted_function_id}': deleteHostedFunctionAction,
  },
};

/**
 * The families the document describes, by the route table's family names: the compiler refuses
 * a family added to a module manifest without its entry here (the fallback has no routes; this
 * family, defined below, joins in `documentedFamilies`; the invoke surface's router, the sign-in page and the API reference serve no API route).
 */
const documented = {
  apps: appsWithoutUpload, auths, carts, catalog, customers, events, hosting, 'hosted-functions': hostedFunctionsWithoutUploads, images: imagesWithoutUpload, licenses, oauth, orders, payments, promotions, refunds, settings, shipping, shipments, subscriptions, reports, users, invoices,
} satisfies Record<Exclude<FamilyName, 'fallback' | 'openapi' | 'docs' | 'function-router' | 'signin'>, FamilyActions>;

/** Every family whose actions the document describes. */
export function documentedFamilies(): readonly FamilyActions[] {
  return [...Object.values(documented), family];
}

/**
 * What the response schemas are made from: the registry's declarations, the shapes their
 * `toJson` renders (generated: `npm run generate:api`), and the event catalog, whose types are
 * the values of an event's `type` and the notification bodies (`webhooks`).
 */
export function responseFacts(): ResponseFacts {
  const types = eventTypes.map((entry) => entry.type);
  return { declarations: resources(), shapes: resourceShapes as ResponseFacts['shapes'], answers: answerShapes as ResponseFacts['answers'], enums: { 'event.type': types }, eventTypes };
}

/** The document for an API root (what `GET /openapi.json` answers there). */
export function apiDocument(serverUrl: string): Record<string, unknown> {
  return openApiDocument(routes, documentedFamilies(), serverUrl, responseFacts());
}

const documents = new Map<string, Record<string, unknown>>();

/** `GET /openapi.json`: this document, for the API root the caller used. */
const openApiAction: Action = async (context) => {
  const serverUrl = context.baseUrl.replace(/\/$/, '');
  let document = documents.get(serverUrl);
  if (document === undefined) {
    document = apiDocument(serverUrl);
    // Hosts differ only between the API host and app hosts: a handful, but never unbounded.
    if (documents.size >= 16) documents.clear();
    documents.set(serverUrl, document);
  }
  return { status: 200, body: document };
};

declareAnswer(openApiAction, {
  schema: {
    type: 'object',
    description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' }, webhooks: { type: 'object' } },
  },
  summary: 'Retrieve the API description',
  description: 'This document, with the API root the request used as its server.',
});

export const family = defineFamily('openapi', {
  'GET /api/v1/openapi.json': openApiAction,
});

export const handler = lambdaHandler(family);
