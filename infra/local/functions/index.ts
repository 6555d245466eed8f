/** The local runner of hosted functions (functions.md §11); used by infra/local/platform.ts only. */
export { localFunctionRunner, type LocalFunctionRunner, type LocalFunctionRunnerOptions } from './runner';
