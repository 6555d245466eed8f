/**
 * `oauth/callback.html` (hosting.md §8): the landing page of token hand-over under every
 * alias. Its one inline script reads the fragment, stores the token (and cart or invoice) in
 * the cookies storefront clients read, drops the fragment from the address bar and history,
 * and moves on with `location.replace`, only ever to a path or a URL of its own origin, so the
 * page cannot serve as an open redirect. The page makes no request of its own; its CSP allows
 * exactly this script, by hash.
 *
 * The script is ES5 and takes everything from `location` (the alias home is the page's own
 * path minus `oauth/callback.html`), so one page, one hash, serves every alias and both local
 * address forms.
 */
import { createHash } from 'node:crypto';
import { HTML_TYPE } from './pages';
import { NO_STORE } from './paths';

/** The inline script, exactly as it is served (its hash is in the CSP). */
export const CALLBACK_SCRIPT = `(function () {
  var params = Object.create(null);
  var fragment = location.hash.replace(/^#/, '');
  var pairs = fragment ? fragment.split('&') : [];
  for (var i = 0; i < pairs.length; i++) {
    var at = pairs[i].indexOf('=');
    try {
      params[decodeURIComponent(at < 0 ? pairs[i] : pairs[i].slice(0, at))] = at < 0 ? '' : decodeURIComponent(pairs[i].slice(at + 1).replace(/\\+/g, ' '));
    } catch (e) {}
  }
  var secure = location.protocol === 'https:' ? '; Secure' : '';
  var maxAge = /^[1-9][0-9]{0,9}$/.test(params.expires_in || '') ? params.expires_in : '1209600';
  var cookie = function (name, value, age) {
    document.cookie = name + '=' + encodeURIComponent(value) + '; path=/; max-age=' + age + '; SameSite=Lax' + secure;
  };
  if (params.access_token) {
    cookie('token', params.access_token, maxAge);
    var bound = ['cart_id', 'invoice_id'];
    for (var j = 0; j < bound.length; j++) {
      if (params[bound[j]]) cookie(bound[j], params[bound[j]], maxAge);
      else cookie(bound[j], '', 0);
    }
  }
  var home = location.pathname.replace(/oauth\\/callback\\.html$/, '');
  var origin = location.protocol + '//' + location.host;
  var target = params.redirect_uri || '';
  var plain = target !== '' && !/[\\u0000-\\u0020\\u007f\\\\]/.test(target);
  var path = target.charAt(0) === '/' && target.charAt(1) !== '/';
  var sameOrigin = target === origin || target.indexOf(origin + '/') === 0;
  if (history.replaceState) history.replaceState(null, '', location.pathname + location.search);
  location.replace(plain && (path || sameOrigin) ? target : home);
})();`;

/** `'sha256-…'` of the script, as the CSP names it. */
export const CALLBACK_SCRIPT_HASH = `'sha256-${createHash('sha256').update(CALLBACK_SCRIPT, 'utf8').digest('base64')}'`;

/** The page, exactly. */
export const CALLBACK_PAGE =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head><body>' +
  `<script>${CALLBACK_SCRIPT}</script></body></html>\n`;

/** The page's headers: never stored, no referrer (the address held a token), only its own script may run. */
export const CALLBACK_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': HTML_TYPE,
  'Cache-Control': NO_STORE,
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': `default-src 'none'; script-src ${CALLBACK_SCRIPT_HASH}; base-uri 'none'; form-action 'none'`,
});
