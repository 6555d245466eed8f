/**
 * The API reference page (`/docs`): Scalar's standalone build (vendored, infra/docs/vendor/README.md)
 * rendering the API's own description, `GET /api/v1/openapi.json`, fetched from the same host, so
 * its "try it" requests go to the server the description names: the runtime or API it came from.
 * The same handler serves the two files in both runtimes (handlers/http/docs.ts): the docs
 * family's Lambda function behind the API's `/docs` routes in the cloud, the local gateway locally.
 */

/** The vendored Scalar build's file name (its version in the name). */
export const SCALAR_SCRIPT = 'scalar-api-reference-1.76.0.standalone.js';

/** The folder beside a Lambda bundle's `index.mjs` that holds the script (the docs family's `apiReference`). */
export const DOCS_BUNDLE_FOLDER = 'docs';

/**
 * What Scalar is told: the description's URL, offline (no default fonts, no telemetry), the
 * description's own server as the target of "try it".
 */
const CONFIGURATION = {
  url: '/api/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideDownloadButton: false,
  defaultOpenAllTags: false,
  documentDownloadType: 'json',
  metaData: { title: 'Cartwheel API reference' },
};

/** The page's one inline script: the same text on every answer, so the page's CSP allows it by its hash. */
export const SCALAR_SETUP = `Scalar.createApiReference('#app', ${JSON.stringify(CONFIGURATION)});`;

/** The page, served at `/docs/` (its script under it); it reads the description at `/api/v1/openapi.json` of the same host. */
export function docsPage(): string {
  const specUrl = CONFIGURATION.url;
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
<script src="/docs/${SCALAR_SCRIPT}"></script>
<script>${SCALAR_SETUP}</script>
</body>
</html>
`;
}
