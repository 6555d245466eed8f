/** `POST /apps/{app_id}/versions` (hosting.md §3.1): the version upload, a `multipart/form-data` route. */
import { readUpload } from '../../../http/body/multipart';
import type { ApiContext, ApiResult } from '../../../http/types';
import { parseInput } from '../../../rest/validate';
import { renderResource } from '../../../rest/render';
import { appScope } from './app-actions';
import { versionFields } from './app-schemas';
import { versionDeclaration, versionPath, versionView } from './apps';
import { getApp } from './apps-store';
import { MAX_PACKAGE_BYTES } from './limits';
import { uploadVersion } from './upload-version';

/**
 * `POST /apps/{app_id}/versions`: the zip in `file`, optional `label` (50 characters) and
 * `comments` (1,000). 201 with the version, normally `ready`; 404 for an unknown app (before the
 * body is read); 422 account_limit_exceeded over 50 MB; 400 invalid_input (property `file`,
 * `meta.reason`) for a package the platform does not take, with nothing stored.
 */
export async function uploadVersionAction(context: ApiContext): Promise<ApiResult> {
  const { accountId, render } = await appScope(context);
  const appId = context.params.app_id!;
  await getApp(accountId, appId);
  const upload = await readUpload(context.headers, context.rawBody, { field: 'file', maxFileBytes: MAX_PACKAGE_BYTES, noun: 'zip package' });
  const fields = parseInput(versionFields, upload.fields);
  const { version, app } = await uploadVersion(context.platform, { accountId, appId, zip: upload.data, label: fields.label ?? null, comments: fields.comments ?? null });
  const body = await renderResource(versionDeclaration, versionView(version, app), render);
  return { status: 201, body, location: render.url(versionPath(appId, version.version_id)) };
}
