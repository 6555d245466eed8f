/**
 * The API reference page (`/docs`): Scalar's standalone build (vendored, ./vendor/README.md)
 * rendering the API's own description, `GET /api/v1/openapi.json`, fetched from the same host, so
 * its "try it" requests go to the server the description names: the runtime or API it came from.
 * The same two files are served by the local runtime (infra/local/docs.ts) and deployed beside
 * the API in the cloud (infra/cloud, a bucket deployment under `docs/` behind the apps CDN).
 */
import { resolve } from 'node:path';

/** The vendored Scalar build's file name (its version in the name). */
export const SCALAR_SCRIPT = 'scalar-api-reference-1.76.0.standalone.js';

/** The vendored files' folder in the repository. */
export const DOCS_VENDOR_DIR = resolve(import.meta.dirname, 'vendor');

/**
 * The page: a title, the description's URL, and Scalar configured to work offline (no default
 * fonts, no telemetry) with the description's own server as the target of "try it".
 * `base` is where the page is served (`/docs/`), `specUrl` the description's path.
 */
export function docsPage(base = '/docs/', specUrl = '/api/v1/openapi.json'): string {
  const configuration = {
    url: specUrl,
    withDefaultFonts: false,
    telemetry: false,
    hideDownloadButton: false,
    defaultOpenAllTags: false,
    documentDownloadType: 'json',
    metaData: { title: 'Cartwheel API reference' },
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cartwheel API reference</title>
</head>
<body>
<noscript>The API reference needs JavaScript. The description itself is at <a href="${specUrl}">${specUrl}</a>.</noscript>
<div id="app"></div>
<script src="${base}${SCALAR_SCRIPT}"></script>
<script>Scalar.createApiReference('#app', ${JSON.stringify(configuration)});</script>
</body>
</html>
`;
}
