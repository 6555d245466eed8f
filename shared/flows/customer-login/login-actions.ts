/**
 * Customer sign-in endpoints, as actions of the API pipeline: `POST /customers/login` and
 * `/customers/me` (commerce.md §6), `POST /carts/{id}/login` and `/logout` (§3.5).
 */
import { readPaymentSettings, readTaxSettings, readTechnicalSettingsCached } from '../../modules/accounts';
import { authDeclaration, type RenderedAuth, assertReach } from '../../modules/identity';
import { InsufficientPermissionsError } from '../../http/auth-errors';
import { type Principal } from '../../core/access/principal';
import { IDLE_LIFETIME_MS } from '../../core/access/token-records';
import { PATH_ALIASES, resolvePathAliases } from '../../core/access/aliases';
import { assertWritable, cartDeclaration, cartPath } from '../../modules/carts';
import { InvalidInputError, NotFoundError } from '../../http/errors';
import { booleanParameter } from '../../http/request';
import { declareAnswer, requirePrincipal, withBody, type ApiContext, type ApiResult } from '../../http/types';
import type { ResourceDeclaration } from '../../rest/declarations';
import { renderResource } from '../../rest/render';
import { renderContext, type RenderContext } from '../../rest/render-context';
import { getRecord, type RecordScope } from '../../store/records';
import { changeCustomer, customerLogin, customerSelfUpdate, customerDeclaration, updateCustomer, type CustomerRecord } from '../../modules/customers';
import { issueCustomerToken, signInCustomer, signInOnCart, signOutOfCart, type CartTotalsSettings } from './login';

/** What the issued limited token's `X-Token-Expires-In-Seconds` says (auth.md 1.5). */
const LIMITED_LIFETIME_SECONDS = String(IDLE_LIFETIME_MS.limited! / 1000);

/**
 * Whose customers a sign-in addresses: with a token its account and mode (a differing
 * `account_id` is 403); without one `account_id` (required) and `test`. 404 for an unknown account.
 */
async function loginScope(context: ApiContext): Promise<RecordScope> {
  const principal = context.principal;
  const asked = context.query.account_id || undefined;
  if (principal && asked && asked !== principal.accountId) {
    throw new InsufficientPermissionsError('The account_id differs from the account of the access token.');
  }
  const accountId = asked ?? principal?.accountId;
  if (!accountId) throw new InvalidInputError('The parameter account_id is required without an access token.', { parameter: 'account_id', reason: 'required' });
  if (!(await readTechnicalSettingsCached(accountId))) throw new NotFoundError('The account does not exist.', { parameter: 'account_id' });
  const mode = principal ? principal.mode : booleanParameter(context.query, 'test') ? 'test' : 'live';
  return { accountId, mode };
}

/**
 * The declaration of the login answer (commerce.md §6.2): the customer, plus `auth`, the URL
 * of the token just issued. `auth` is a virtual expansion of this answer only: `expand=auth`
 * inlines the token itself (the one time its full value is shown), and `auth.*` paths walk on
 * from it like from any expanded link.
 */
function signedInDeclaration(auth: RenderedAuth): ResourceDeclaration<CustomerRecord> {
  return {
    ...customerDeclaration,
    toJson: (customer, context) => ({ ...customerDeclaration.toJson(customer, context), auth: context.url(`auths/${auth.auth_id}`) }),
    virtuals: { ...customerDeclaration.virtuals, auth: { resource: authDeclaration.name, compute: () => auth } },
  };
}

/**
 * `POST /customers/login` (public): 200 with the customer and the URL of a new customer-scope
 * limited token in `auth` (`expand=auth` for the token itself). A limited caller gains
 * customer scope too. 401 invalid_login / account_locked; 422 binding_limit_exceeded.
 */
export const customerLoginAction = withBody(customerLogin, async (context) => {
  const scope = await loginScope(context);
  const render = await renderContext(context, scope.accountId, scope.mode);
  const customer = await signInCustomer(scope, context.body, context.platform.clock);
  const { record, token } = await issueCustomerToken(customer, context.principal, context.platform.clock);
  return {
    status: 200,
    body: await renderResource(signedInDeclaration({ ...record, full_token: token }), customer, render),
    // The header describes the issued token, not the caller's (auth.md 1.5).
    headers: { 'X-Token-Expires-In-Seconds': LIMITED_LIFETIME_SECONDS },
    sensitive: true,
  };
});

/**
 * Where the customer of a customer-scope token is; 404 for every other token (commerce.md §6.1).
 * `me` is resolved as in every `/customers/me/...` path (core/access/aliases.ts).
 */
async function ownCustomer(context: ApiContext): Promise<{ scope: RecordScope; customerId: string; render: RenderContext }> {
  const principal = requirePrincipal(context);
  const { params, unresolved } = resolvePathAliases({ customer_id: PATH_ALIASES.customer_id!.word }, principal);
  if (unresolved) throw new NotFoundError(`The ${unresolved.what} does not exist.`);
  const customerId = params.customer_id!;
  const scope = { accountId: principal.accountId, mode: principal.mode };
  return { scope, customerId, render: await renderContext(context, scope.accountId, scope.mode) };
}

/** `GET /customers/me`: the signed-in customer. */
export async function getMeAction(context: ApiContext): Promise<ApiResult> {
  const { scope, customerId, render } = await ownCustomer(context);
  const customer = await getRecord(customerDeclaration, scope, customerId);
  return { status: 200, body: await renderResource(customerDeclaration, customer, render) };
}

/** `POST /customers/me`: a partial update of the signed-in customer; `tax_exempt` is read-only for it. */
export const updateMeAction = withBody(customerSelfUpdate, async (context) => {
  const { scope, customerId, render } = await ownCustomer(context);
  const saved = await updateCustomer(scope, customerId, (current) => changeCustomer(current, context.body, context.platform.clock));
  return { status: 200, body: await renderResource(customerDeclaration, saved, render) };
});

/** What a cart sign-in or sign-out needs: the caller, the cart's scope and id, rendering. */
interface CartRequest {
  principal: Principal;
  scope: RecordScope;
  cartId: string;
  render: RenderContext;
}

/** 404 unless the caller reaches the cart (a limited token: only the carts it created). */
async function cartRequest(context: ApiContext): Promise<CartRequest> {
  const principal = requirePrincipal(context);
  const scope = { accountId: principal.accountId, mode: principal.mode };
  const cartId = context.params.cart_id!;
  assertReach(principal, cartPath(cartId), 'cart');
  return { principal, scope, cartId, render: await renderContext(context, scope.accountId, scope.mode) };
}

/** Cart writes re-total with the settings as they are now, not as cached for rendering. */
async function totalsSettings(scope: RecordScope): Promise<CartTotalsSettings> {
  const [payment, tax] = await Promise.all([readPaymentSettings(scope.accountId), readTaxSettings(scope.accountId)]);
  return { payment, tax };
}

/**
 * `POST /carts/{cart_id}/login`: checks `{username, password}` under the lockout, then links the
 * customer to the cart; a limited caller gains customer scope. 401 invalid_login /
 * account_locked; 422 invalid_state once paid (checked first, so a paid cart counts no failure).
 */
export const cartLoginAction = withBody(customerLogin, async (context) => {
  const request = await cartRequest(context);
  const read = () => getRecord(cartDeclaration, request.scope, request.cartId);
  assertWritable(await read(), context.platform.clock.nowMs());
  const customer = await signInCustomer(request.scope, context.body, context.platform.clock);
  const settings = await totalsSettings(request.scope);
  const saved = await signInOnCart(request.scope, request.cartId, customer, request.principal, settings, context.platform.clock);
  return { status: 200, body: await renderResource(cartDeclaration, saved, request.render) };
});

/** `POST /carts/{cart_id}/logout`: unlinks the customer; entered details stay. 422 once paid. */
export async function cartLogoutAction(context: ApiContext): Promise<ApiResult> {
  const request = await cartRequest(context);
  const settings = await totalsSettings(request.scope);
  const saved = await signOutOfCart(request.scope, request.cartId, settings, context.platform.clock);
  return { status: 200, body: await renderResource(cartDeclaration, saved, request.render) };
}

declareAnswer(customerLoginAction, { resource: 'customer', summary: 'Sign a customer in', description: 'Answers the signed-in customer, with `auth`: the URL of a new customer-scope limited token (`expand=auth` gives the token itself, in full in this answer only).' });
declareAnswer(cartLoginAction, { resource: 'cart' });
declareAnswer(cartLogoutAction, { resource: 'cart' });
