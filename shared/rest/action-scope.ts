/**
 * What an authenticated action starts from: who is calling, the record scope of their account
 * and mode (what they may read and write), and the render context of the request.
 */
import type { Principal } from '../core/access/principal';
import { requirePrincipal, type ApiContext } from '../http/types';
import type { RecordScope } from '../store/records';
import { renderContext, type RenderContext } from './render-context';

/** The caller, its scope and the request's render context. */
export interface ActionScope {
  principal: Principal;
  scope: RecordScope;
  render: RenderContext;
}

/**
 * The caller of an action (its route needs a principal), the scope of its account and mode, and
 * the render context (which validates `show`/`hide`, zone and locale up front). Checks that must
 * refuse a caller before any of that is read run on `requirePrincipal(context)` first.
 *
 * @example const { principal, scope, render } = await actionScope(context);
 */
export async function actionScope(context: ApiContext): Promise<ActionScope> {
  const principal = requirePrincipal(context);
  const scope = { accountId: principal.accountId, mode: principal.mode };
  return { principal, scope, render: await renderContext(context, scope.accountId, scope.mode) };
}
