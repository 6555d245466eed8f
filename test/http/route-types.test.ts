/**
 * Route keys and path parameters are derived from the route table, so a family whose action
 * table misses a route, names a route outside the family, or reads a parameter its path does
 * not have fails `tsc` (the `@ts-expect-error` lines below fail it if they ever stop failing).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { FamilyRouteKey, ParamKeys, RouteKey, RouteParams } from '../../shared/app/routes';
import { defineFamily, type FamilyActionTable } from '../../shared/app/families';
import type { ApiContext, ApiResult } from '../../shared/http/types';

const ok = async (): Promise<ApiResult> => ({ status: 200 });

describe('route types', () => {
  it('derive route keys from the table', () => {
    expectTypeOf<'GET /api/v1/carts/{cart_id}'>().toExtend<RouteKey>();
    expectTypeOf<'GET /api/v1/nope'>().not.toExtend<RouteKey>();
    expectTypeOf<FamilyRouteKey<'settings'>>().toEqualTypeOf<'GET /api/v1/settings/{group}' | 'POST /api/v1/settings/{group}'>();
  });

  it('derive path parameters from the path string', () => {
    expectTypeOf<ParamKeys<'/api/v1/carts/{cart_id}/items/{item_id}'>>().toEqualTypeOf<'cart_id' | 'item_id'>();
    expectTypeOf<ParamKeys<'/api/v1/carts'>>().toEqualTypeOf<never>();
    expectTypeOf<RouteParams<'GET /api/v1/carts/{cart_id}'>>().toEqualTypeOf<{ cart_id: string }>();
  });

  it('give each action exactly its route parameters', () => {
    expectTypeOf<FamilyActionTable<'settings'>['GET /api/v1/settings/{group}']>()
      .parameter(0)
      .toEqualTypeOf<ApiContext<{ group: string }>>();
    defineFamily('settings', {
      'GET /api/v1/settings/{group}': async (context) => {
        expectTypeOf(context.params).toEqualTypeOf<{ group: string }>();
        // @ts-expect-error the settings routes have no `setting_id` parameter
        void context.params.setting_id;
        return ok();
      },
      // Actions written for any route (the default `ApiContext`) still fit.
      'POST /api/v1/settings/{group}': async (_context: ApiContext) => ok(),
    });
  });

  it('refuse a missing action or one outside the family, at compile time and at load', () => {
    // @ts-expect-error the POST route has no action
    expect(() => defineFamily('settings', { 'GET /api/v1/settings/{group}': ok })).toThrow(/has no action/);
    expect(() =>
      defineFamily('settings', {
        'GET /api/v1/settings/{group}': ok,
        'POST /api/v1/settings/{group}': ok,
        // @ts-expect-error this route belongs to another family
        'GET /api/v1/carts': ok,
      }),
    ).toThrow(/not in the route table/);
  });
});
