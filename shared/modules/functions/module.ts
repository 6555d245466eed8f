/**
 * The functions module as the app composes it (data only, listed in shared/app/modules.ts): the
 * management family (`/hosted_functions`), the invoke surface's router family (`/func/v1/...`,
 * shared/app/surfaces.ts) and the resource it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowCrud, collectionRoutes } from '../../http/routes';
import { hostedFunctionDeclaration } from './declaration';
import { MAX_FUNCTION_UPLOAD_BODY_BYTES } from './limits';

/** Text fields of the management forms (functions.md §6). */
const formFields = {
  name: 'Required on create; at most 100 characters',
  runtime: 'nodejs22.x, python3.13, java21 or dotnet8 (short names accepted); required on create (or `environment`)',
  environment: 'The same value as runtime, under its older name',
  handler: 'Entry point, e.g. index.handler; required on create',
  description: 'At most 1,000 characters',
  environment_variables: 'JSON text: [{"name":"REGION","value":"eu"}] or {"REGION":"eu"}',
  timeout: 'Seconds as decimal text, 1 to 900 (default 30)',
  memory_mb: 'MB as decimal text, 128 to 3,008 (default 256)',
} as const;

export const functionsModule = defineModule({
  name: 'functions',
  families: {
    'hosted-functions': {
      entry: 'handlers/http/hosted-functions.ts',
      // An upload holds a zip of up to 50 MB, read once to check it and repackaged with the wrapper in the cloud.
      memoryMb: 1536,
      description: 'Hosted functions: /hosted_functions (upload, deploy, settings, delete)',
      // Variables are sealed and opened; zips are stored, read and removed; functions are deployed and removed.
      grants: {
        table: 'readWrite',
        secrets: 'encryptDecrypt',
        email: false,
        sendsTo: [],
        objects: [{ bucket: 'functions', prefix: 'functions/', read: true, put: true, delete: true }],
        functions: 'manage',
      },
    },
    'function-router': {
      entry: 'handlers/http/function-router.ts',
      memoryMb: 512,
      description: 'Invoke URLs of hosted functions: /func/v1/<id> (any method, raw bodies)',
      // Authenticates the caller (rate-limit buckets), opens nothing, invokes functions tagged for the platform.
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [], functions: 'invoke' },
    },
  },
  routes: [
    ...collectionRoutes({
      family: 'hosted-functions',
      path: '/api/v1/hosted_functions',
      id: 'hosted_function_id',
      access: { list: allowCrud('hosted_functions').list, read: allowCrud('hosted_functions').read, delete: allowCrud('hosted_functions').delete },
    }),
    {
      method: 'POST',
      path: '/api/v1/hosted_functions',
      family: 'hosted-functions',
      access: allow('hosted_functions', 'create'),
      body: 'multipart',
      multipart: { maxBytes: MAX_FUNCTION_UPLOAD_BODY_BYTES, fields: formFields },
    },
    {
      method: 'POST',
      path: '/api/v1/hosted_functions/{hosted_function_id}',
      family: 'hosted-functions',
      access: allow('hosted_functions', 'update'),
      // Multipart (a `file` replaces the code) or JSON (settings only).
      body: 'multipart',
      multipart: { maxBytes: MAX_FUNCTION_UPLOAD_BODY_BYTES, fields: formFields },
    },
  ],
  declarations: [hostedFunctionDeclaration],
});
