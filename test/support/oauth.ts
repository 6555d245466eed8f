/**
 * The OAuth authorize page (auth.md 6.2) as a browser without JavaScript uses it, over plain
 * HTTP: open `{signin_url}oauth/authorize` (its anti-forgery cookie and hidden fields), post the
 * login back, then answer the consent screen; and `POST /oauth/token` as a client does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { errorCodeOf, hiddenField } from './sign-in';

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** One answer of the authorize page. */
export interface PageAnswer {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
  errorCode: string | undefined;
  /** `name=value` of the anti-forgery cookie it set, if any. */
  cookie: string | undefined;
}

async function pageAnswer(response: Response): Promise<PageAnswer> {
  const html = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    html,
    location: response.headers.get('location'),
    errorCode: errorCodeOf(html),
    cookie: response.headers.getSetCookie()[0]?.split(';')[0],
  };
}

/** `GET {signin_url}oauth/authorize?query`. */
export async function openAuthorize(signinUrl: string, query: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
  return pageAnswer(await fetch(`${signinUrl}oauth/authorize?${new URLSearchParams(query)}`, { redirect: 'manual', headers }));
}

/** `POST {signin_url}oauth/authorize` with `fields` as a form body and `cookie`. */
export async function postAuthorize(signinUrl: string, fields: Record<string, string>, cookie: string | undefined, headers: Record<string, string> = {}): Promise<PageAnswer> {
  return pageAnswer(
    await fetch(`${signinUrl}oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}), ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

const REQUEST_FIELDS = ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method', 'test', 'step', 'lang', 'csrf_token', 'ticket'];

/** The hidden fields of a page's form. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of REQUEST_FIELDS) {
    const value = hiddenField(html, name);
    if (value !== undefined) fields[name] = value;
  }
  return fields;
}

/** Opens the page with `query` and signs in on it, as a browser would: the consent screen (or the form again with an error). */
export async function signInToAuthorize(signinUrl: string, query: Record<string, string>, username: string, password: string): Promise<PageAnswer> {
  const form = await openAuthorize(signinUrl, query);
  if (form.status !== 200) throw new Error(`authorize page: ${form.status} ${form.errorCode ?? ''} ${form.location ?? ''}`);
  return postAuthorize(signinUrl, { ...hiddenFields(form.html), username, password }, form.cookie);
}

/** Answers a consent screen with `decision` (`allow` or `deny`). */
export async function answerConsent(signinUrl: string, consent: PageAnswer, decision: 'allow' | 'deny'): Promise<PageAnswer> {
  return postAuthorize(signinUrl, { ...hiddenFields(consent.html), decision }, consent.cookie);
}

/** The whole page flow: sign in and answer the consent screen; the final 303. */
export async function authorizeThrough(signinUrl: string, query: Record<string, string>, username: string, password: string, decision: 'allow' | 'deny' = 'allow'): Promise<PageAnswer> {
  const consent = await signInToAuthorize(signinUrl, query, username, password);
  if (consent.status !== 200) throw new Error(`sign-in on the authorize page: ${consent.status} ${consent.errorCode ?? ''}`);
  return answerConsent(signinUrl, consent, decision);
}

/** The query parameters of a `Location`. */
export function queryOf(location: string | null): Record<string, string> {
  if (!location) return {};
  const url = new URL(location);
  return Object.fromEntries(url.searchParams);
}

/** `POST {base_url}oauth/token` with `fields`, form-encoded (default) or as JSON, with optional HTTP Basic credentials. */
export async function tokenRequest(
  baseUrl: string,
  fields: Record<string, string>,
  options: { json?: boolean; basic?: { clientId: string; secret: string }; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.basic) headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.basic.clientId)}:${encodeURIComponent(options.basic.secret)}`).toString('base64')}`;
  headers['Content-Type'] = options.json ? 'application/json' : 'application/x-www-form-urlencoded';
  const response = await fetch(`${baseUrl}oauth/token`, { method: 'POST', headers, body: options.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString() });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}
