/**
 * The uploading endpoints of `/hosted_functions` (functions.md §6): create takes
 * `multipart/form-data`; update takes multipart (a `file` replaces the code) or JSON (settings only).
 */
import { isJsonContentType, parseJsonBytes } from '../../http/body/json';
import { readForm, readUpload } from '../../http/body/multipart';
import type { ApiContext, ApiResult } from '../../http/types';
import { actionScope } from '../../rest/action-scope';
import { renderResource } from '../../rest/render';
import { parseInput } from '../../rest/validate';
import { showsValues, visible } from './actions';
import { hostedFunctionDeclaration, hostedFunctionPath } from './declaration';
import { MAX_FUNCTION_ZIP_BYTES } from './limits';
import { createHostedFunction, updateHostedFunctionSettings, type UploadedCode } from './manage';
import { hostedFunctionCreate, hostedFunctionUpdate } from './schemas';
import { getHostedFunction } from './hosted-function-store';

/** `POST /hosted_functions`: multipart `file` and fields; 201 with `Location`. */
export async function createHostedFunctionAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const upload = await readUpload(context.headers, context.rawBody, { field: 'file', maxFileBytes: MAX_FUNCTION_ZIP_BYTES, noun: 'zip package' });
  const fields = parseInput(hostedFunctionCreate, upload.fields);
  const view = visible(await createHostedFunction(context.platform, scope, fields, { filename: upload.filename, data: upload.data }), principal);
  const body = await renderResource(hostedFunctionDeclaration, view, render);
  return { status: 201, body, location: render.url(hostedFunctionPath(view.hosted_function_id)), sensitive: showsValues(view) };
}

/** `POST /hosted_functions/{hosted_function_id}`: multipart (a `file` replaces the code) or JSON (settings only); 200. */
export async function updateHostedFunctionAction(context: ApiContext): Promise<ApiResult> {
  const { principal, scope, render } = await actionScope(context);
  const functionId = context.params.hosted_function_id!;
  // 404 (or token_type_mismatch) before the body is read.
  const read = await getHostedFunction(scope, functionId);
  let fields: unknown;
  let code: UploadedCode | undefined;
  if (isJsonContentType(context.headers['content-type']) || !context.rawBody?.length) {
    fields = context.rawBody?.length ? parseJsonBytes(context.rawBody) : {};
  } else {
    const form = await readForm(context.headers, context.rawBody, { field: 'file', maxFileBytes: MAX_FUNCTION_ZIP_BYTES, noun: 'zip package' });
    fields = form.fields;
    if (form.file) code = { filename: form.file.filename, data: form.file.data };
  }
  const parsed = parseInput(hostedFunctionUpdate, fields);
  const view = visible(await updateHostedFunctionSettings(context.platform, read, parsed, code), principal);
  return { status: 200, body: await renderResource(hostedFunctionDeclaration, view, render), sensitive: showsValues(view) };
}

