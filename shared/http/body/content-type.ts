/** What a `Content-Type` header names, as the body parsers compare it (conventions.md §4). */

/** The media type of a Content-Type header, lowercase, without parameters. */
export function mediaType(header: string | undefined): string | undefined {
  return header?.split(';')[0]!.trim().toLowerCase() || undefined;
}

/**
 * Whether a Content-Type header names `type` (any case, parameters tolerated) in UTF-8: a
 * `charset` parameter, if given, must be `utf-8`.
 * @example isMediaType('Application/JSON; charset=UTF-8', 'application/json') // true
 */
export function isMediaType(header: string | undefined, type: string): boolean {
  if (!header) return false;
  const [name, ...parameters] = header.split(';');
  if (name!.trim().toLowerCase() !== type) return false;
  for (const parameter of parameters) {
    const [key, value] = parameter.split('=');
    if (key?.trim().toLowerCase() === 'charset') {
      const charset = value?.trim().replace(/^"|"$/g, '').toLowerCase();
      if (charset !== 'utf-8' && charset !== 'utf8') return false;
    }
  }
  return true;
}

/**
 * Whether a body of this type is text: `text/*`, JSON, XML, form-encoded or JavaScript (what API
 * Gateway and the invoke surface pass as a string; everything else travels base64-encoded). No
 * header counts as text.
 */
export function isTextual(header: string | undefined): boolean {
  const type = mediaType(header);
  if (!type) return true;
  return (
    type.startsWith('text/') ||
    type.endsWith('/json') ||
    type.endsWith('+json') ||
    type.endsWith('/xml') ||
    type.endsWith('+xml') ||
    type === 'application/x-www-form-urlencoded' ||
    type === 'application/javascript' ||
    type === 'application/ecmascript'
  );
}
