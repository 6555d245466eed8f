/**
 * The sign-in page (auth.md 5.1) as a browser without JavaScript uses it, over plain HTTP: open
 * the form (its anti-forgery cookie and hidden value), post it back as a form body, and read
 * the `303` (the token in the fragment) or the page that came back.
 */

/** What opening the form gave. */
export interface OpenedForm {
  status: number;
  headers: Headers;
  html: string;
  /** `name=value` of the anti-forgery cookie, for the `Cookie` header. */
  cookie: string | undefined;
  /** The form's hidden anti-forgery value. */
  csrf: string | undefined;
}

/** What posting the form gave. */
export interface SubmittedForm {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
  /** `data-error-code` of the page's message, if any. */
  errorCode: string | undefined;
}

/** The value of a hidden field of the form. */
export function hiddenField(html: string, name: string): string | undefined {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  return match?.[1]?.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** `data-error-code` of the page's message, if any. */
export function errorCodeOf(html: string): string | undefined {
  return /data-error-code="([^"]+)"/.exec(html)?.[1];
}

/** `GET {signin_url}?query`. */
export async function openSignIn(signinUrl: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<OpenedForm> {
  const url = `${signinUrl}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
  const response = await fetch(url, { headers, redirect: 'manual' });
  const html = await response.text();
  const setCookie = response.headers.getSetCookie()[0];
  return { status: response.status, headers: response.headers, html, cookie: setCookie?.split(';')[0], csrf: hiddenField(html, 'csrf_token') };
}

/** `POST {signin_url}` with `fields` as a form body, and `cookie` when given. */
export async function submitSignIn(signinUrl: string, fields: Record<string, string>, cookie: string | undefined, headers: Record<string, string> = {}): Promise<SubmittedForm> {
  const response = await fetch(signinUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}), ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  const html = await response.text();
  return { status: response.status, headers: response.headers, html, location: response.headers.get('location'), errorCode: errorCodeOf(html) };
}

/** Opens the form with `query` and posts it back with the login, as a browser would (the hidden fields kept). */
export async function signInThroughForm(signinUrl: string, username: string, password: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<SubmittedForm> {
  const form = await openSignIn(signinUrl, query, headers);
  const hidden: Record<string, string> = {};
  for (const name of ['redirect_uri', 'state', 'test', 'iframe', 'lang', 'csrf_token']) {
    const value = hiddenField(form.html, name);
    if (value !== undefined) hidden[name] = value;
  }
  return submitSignIn(signinUrl, { ...hidden, username, password }, form.cookie, headers);
}

/** The fragment parameters of a `Location` (`access_token`, `token_type`, `expires_in`, `state`). */
export function fragmentOf(location: string | null): Record<string, string> {
  if (!location || !location.includes('#')) return {};
  return Object.fromEntries(new URLSearchParams(location.slice(location.indexOf('#') + 1)));
}

/** Signs in through the form for a registered `redirectUri` and answers the trusted token (throws when there is none). */
export async function trustedTokenFor(signinUrl: string, username: string, password: string, redirectUri: string, query: Record<string, string> = {}): Promise<string> {
  const answer = await signInThroughForm(signinUrl, username, password, { redirect_uri: redirectUri, ...query });
  const token = fragmentOf(answer.location).access_token;
  if (answer.status !== 303 || !token) throw new Error(`sign-in failed: ${answer.status} ${answer.errorCode ?? ''} ${answer.html.slice(0, 300)}`);
  return token;
}
