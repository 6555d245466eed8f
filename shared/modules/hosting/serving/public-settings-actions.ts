/**
 * `GET /app_installations/public_settings/{account_id}/{live|test}/account.js` and `.json`
 * (hosting.md §7.1): the account object of hosted apps' `settings/account.js`, built by the
 * same code, for pages outside the platform's hosting. No token needed.
 */
import { NotFoundError } from '../../../http/errors';
import { declareAnswer, type Action, type ApiResult } from '../../../http/types';
import { readAccountFacts } from './account-facts';
import { accountObject } from './account-settings';
import { JAVASCRIPT_TYPE, settingsFile } from './injected-files';
import { NO_CACHE } from './paths';

type Params = { account_id: string; mode: string };

/** Both routes: the file type follows the route's path. */
export const publicAccountSettingsAction: Action<Params> = async (context): Promise<ApiResult> => {
  const { account_id: accountId, mode } = context.params;
  if (mode !== 'live' && mode !== 'test') throw new NotFoundError('The mode must be live or test.', { parameter: 'mode' });
  const facts = await readAccountFacts(accountId);
  if (!facts) throw new NotFoundError('The account does not exist.', { parameter: 'account_id' });
  const value = accountObject({ accountId, test: mode === 'test', facts, nowMs: context.platform.clock.nowMs(), headers: context.headers });
  const file = settingsFile('account', context.route.path.endsWith('.js') ? 'js' : 'json', value);
  return { status: 200, raw: { body: file.body, contentType: file.contentType }, headers: { 'Cache-Control': NO_CACHE, Vary: 'Accept, Accept-Language, User-Agent' } };
};

/** `account.js`: the same action under its own name, so the API description gives each route its answer. */
export const publicAccountScriptAction: Action<Params> = (context) => publicAccountSettingsAction(context);

/** `account.json`: the same action under its own name. */
export const publicAccountJsonAction: Action<Params> = (context) => publicAccountSettingsAction(context);

declareAnswer(publicAccountScriptAction, { text: JAVASCRIPT_TYPE.split(';')[0]!, summary: 'Retrieve an account\'s public settings as a script', description: 'A script that sets `window.account` to the account object (the `account.json` answer), for pages outside the platform\'s hosting.' });
declareAnswer(publicAccountJsonAction, { shape: 'public_account', summary: 'Retrieve an account\'s public settings', description: 'The account object hosted apps read from `settings/account.js`: the company, its currencies, payment methods and the visitor\'s country and locale.' }, accountObject);
