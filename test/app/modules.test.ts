/**
 * The one list of module manifests (shared/app/modules.ts) and what the app derives from it:
 * the route table, the families, the resource registry, the queues and the due-work table.
 * The compiler checks most of it (a route's family exists, every due kind has a handler);
 * these check what it cannot see.
 */
import { describe, expect, it } from 'vitest';
import type { ModuleManifest } from '../../shared/http/manifest';
import { modules as composed } from '../../shared/app/modules';
import { queues } from '../../shared/app/queues';
import { resources } from '../../shared/app/resources';
import { families, routeKey, routes } from '../../shared/app/routes';
import { dueHandlers, queueHandlers, sweepOrder } from '../../shared/app/work';

/** The manifests as their common type (the list keeps each one's literal type for the compiler). */
const modules: readonly ModuleManifest[] = composed;

describe('module manifests', () => {
  it('give every route and family exactly one owner', () => {
    const keys = modules.flatMap((manifest) => manifest.routes.map((route) => routeKey(route)));
    expect(new Set(keys).size).toBe(keys.length);
    const owned = modules.flatMap((manifest) => Object.keys(manifest.families));
    expect(new Set(owned).size).toBe(owned.length);
    // The app's own three families (the description, its reference page, the fallback) are not a module's.
    expect(Object.keys(families).sort()).toEqual([...owned, 'fallback', 'openapi', 'docs'].sort());
  });

  it('make up the whole route table (the app adds only the API description)', () => {
    const fromModules: string[] = modules.flatMap((manifest) => manifest.routes.map((route) => routeKey(route)));
    expect(routes.map((route) => routeKey(route)).filter((key) => !fromModules.includes(key))).toEqual(['GET /api/v1/openapi.json']);
  });

  it('declare every registered resource, once', () => {
    const declared = modules.flatMap((manifest) => manifest.declarations.map((declaration) => declaration.name));
    expect(new Set(declared).size).toBe(declared.length);
    expect(resources().map((declaration) => declaration.name)).toEqual(declared);
  });

  it('declare every work queue', () => {
    expect(queues.map((queue) => queue.name).sort()).toEqual(modules.flatMap((manifest) => (manifest.queues ?? []).map((queue) => queue.name)).sort());
  });
});

describe('due work table', () => {
  it('files each handler under its own kind, and sweeps each once', () => {
    for (const [kind, handler] of Object.entries(dueHandlers)) expect(handler.kind).toBe(kind);
    expect(new Set(sweepOrder).size).toBe(sweepOrder.length);
  });

  it('sends queued kinds only to queues that exist and have a consumer', () => {
    const consumed = new Set(queues.filter((queue) => queue.consumer).map((queue) => queue.name));
    for (const handler of sweepOrder) if (handler.queue) expect(consumed.has(handler.queue), `${handler.kind} -> ${handler.queue}`).toBe(true);
    for (const queue of consumed) expect(queueHandlers(queue).length, queue).toBeGreaterThan(0);
  });

  it('runs payments before confirmation emails, unlinks before image files, fan-out before delivery', () => {
    const position = (kind: string) => sweepOrder.findIndex((handler) => handler.kind === kind);
    expect(position('payment-recovery')).toBeLessThan(position('confirmation-email'));
    expect(position('license-open')).toBeLessThan(position('license-request'));
    expect(position('image-unlink')).toBeLessThan(position('image-files'));
    expect(position('event-fanout')).toBeLessThan(position('event-delivery'));
  });
});
