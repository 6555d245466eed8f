/**
 * The viewer-request function (cloudfront-js-2.0) of the app-files behaviour (hosting.md §10):
 * it reads the account from the host and the alias from the path, looks up the alias in the
 * pointer KeyValueStore, and rewrites the request to the served version's immutable prefix in
 * the apps bucket (`/apps/<account_id>/<app_id>/<version_id>/<path>`), so the cache key holds
 * the version and a deploy never serves stale files. It answers itself what needs no file:
 * 405 for other methods, the platform 404 page for an unknown alias or a path with a `..`
 * segment or NUL, and the 301 from `/<alias>` to `/<alias>/` (query kept), all with the
 * serving rules' headers. A path ending in `/` gets `index.html` and the `x-cartwheel-index`
 * marker, so a bucket miss there reaches the hosting handler as the directory it was.
 *
 * It also sets `x-forwarded-host` to the viewer's host (lower case), which the hosting handler
 * reads the account from on a bucket miss; a viewer's own value is always replaced.
 */
import { INDEX_APPENDED_HEADER, ALLOWED_METHODS, HTML_TYPE, METHOD_NOT_ALLOWED_PAGE, NOT_FOUND_PAGE, SECURITY_HEADERS, ALIAS_PATTERN, NO_CACHE } from '../../shared/modules/hosting';
import { edgePointerKey } from '../../shared/platform/edge-pointer-format';

/** Headers of every answer the function gives itself, in CloudFront's shape. */
const answerHeaders = Object.fromEntries(
  Object.entries({ ...SECURITY_HEADERS, 'Cache-Control': NO_CACHE }).map(([name, value]) => [name.toLowerCase(), { value }]),
);

// The key format must be the one the apps module writes.
if (edgePointerKey('A', 'b') !== 'A/b') throw new Error('The app router assumes pointer keys <account_id>/<alias>');

/** The function's code, exactly as deployed. */
export const appRouterFunctionCode = `import cf from 'cloudfront';
const pointers = cf.kvs();
const ALIAS = ${ALIAS_PATTERN.toString()};
const ACCOUNT = /^[0-9A-Z]{1,63}$/;
const HEADERS = ${JSON.stringify(answerHeaders)};
const NOT_FOUND = ${JSON.stringify(NOT_FOUND_PAGE)};
const METHOD_NOT_ALLOWED = ${JSON.stringify(METHOD_NOT_ALLOWED_PAGE)};

function answer(statusCode, statusDescription, extra, page) {
  const headers = Object.assign({}, HEADERS, extra);
  const response = { statusCode: statusCode, statusDescription: statusDescription, headers: headers };
  if (page !== undefined) {
    headers['content-type'] = { value: ${JSON.stringify(HTML_TYPE)} };
    response.body = { encoding: 'text', data: page };
  }
  return response;
}

function queryOf(querystring) {
  const parts = [];
  for (const name in querystring) {
    const entry = querystring[name];
    const values = entry.multiValue ? entry.multiValue : [entry];
    for (let i = 0; i < values.length; i++) parts.push(values[i].value === '' ? name : name + '=' + values[i].value);
  }
  return parts.length ? '?' + parts.join('&') : '';
}

async function handler(event) {
  const request = event.request;
  const host = request.headers.host ? request.headers.host.value.toLowerCase() : '';
  request.headers['x-forwarded-host'] = { value: host };
  delete request.headers['${INDEX_APPENDED_HEADER}'];
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return answer(405, 'Method Not Allowed', { allow: { value: '${ALLOWED_METHODS}' } }, METHOD_NOT_ALLOWED);
  }
  const notFound = answer(404, 'Not Found', {}, NOT_FOUND);
  const account = host.split('.')[0].toUpperCase();
  const uri = request.uri;
  const slash = uri.indexOf('/', 1);
  const alias = slash === -1 ? uri.slice(1) : uri.slice(1, slash);
  if (!ACCOUNT.test(account) || !ALIAS.test(alias)) return notFound;
  let target;
  try {
    target = await pointers.get(account + '/' + alias);
  } catch (e) {
    return notFound;
  }
  if (slash === -1) return answer(301, 'Moved Permanently', { location: { value: alias + '/' + queryOf(request.querystring) } });
  let path = uri.slice(slash + 1);
  let decoded;
  try {
    decoded = decodeURIComponent(path);
  } catch (e) {
    return notFound;
  }
  if (decoded.indexOf('\\u0000') !== -1 || decoded.split('/').indexOf('..') !== -1) return notFound;
  if (path === '' || path.charAt(path.length - 1) === '/') {
    path += 'index.html';
    request.headers['${INDEX_APPENDED_HEADER}'] = { value: '1' };
  }
  request.uri = '/apps/' + account + '/' + target + '/' + path;
  return request;
}
`;
