/** The fields of a hosted function (functions.md §1-§3): runtimes, handlers and variables. */
import { describe, expect, it } from 'vitest';
import { handlerFiles, handlerFormProblem, hostedFunctionCreate, hostedFunctionUpdate } from '../../../shared/modules/functions/schemas';
import { variablesAfter } from '../../../shared/modules/functions/variables';
import { ApiError } from '../../../shared/core/errors';

const base = { name: 'Quote', runtime: 'nodejs22.x', handler: 'index.handler' };

describe('hosted function fields', () => {
  it('stores short runtime names as the full value, under either property', () => {
    expect(hostedFunctionCreate.parse({ ...base, runtime: 'node' }).runtime).toBe('nodejs22.x');
    expect(hostedFunctionCreate.parse({ ...base, runtime: undefined, environment: 'python' }).environment).toBe('python3.13');
    expect(hostedFunctionCreate.parse({ ...base, runtime: 'CSharp' }).runtime).toBe('dotnet8');
    expect(hostedFunctionCreate.safeParse({ ...base, runtime: 'ruby3.3' }).success).toBe(false);
  });

  it('reads timeout and memory as numbers or decimal text, in range', () => {
    expect(hostedFunctionCreate.parse({ ...base, timeout: '5', memory_mb: '512' })).toMatchObject({ timeout: 5, memory_mb: 512 });
    for (const bad of [{ timeout: 0 }, { timeout: 901 }, { timeout: '1.5' }, { memory_mb: 127 }, { memory_mb: 3009 }, { memory_mb: 'lots' }]) {
      expect(hostedFunctionCreate.safeParse({ ...base, ...bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('takes variables as an array, an object or that JSON as text', () => {
    const array = hostedFunctionCreate.parse({ ...base, environment_variables: [{ name: 'REGION', value: 'eu' }] });
    const object = hostedFunctionCreate.parse({ ...base, environment_variables: { REGION: 'eu' } });
    const text = hostedFunctionCreate.parse({ ...base, environment_variables: '[{"name":"REGION","value":"eu"}]' });
    for (const parsed of [array, object, text]) expect(parsed.environment_variables).toEqual([{ name: 'REGION', value: 'eu' }]);
    expect(hostedFunctionUpdate.parse({ environment_variables: [{ name: 'REGION' }] }).environment_variables).toEqual([{ name: 'REGION' }]);
  });

  it('refuses reserved, malformed, repeated, too many and too large variables', () => {
    const refused = [
      { CARTWHEEL_KEY: 'x' },
      { PATH: '/bin' },
      { NODE_OPTIONS: '--inspect' },
      { AWS_SECRET_ACCESS_KEY: 'x' },
      { LAMBDA_TASK_ROOT: 'x' },
      { _HANDLER: 'x' },
      { '1ABC': 'x' },
      { 'A-B': 'x' },
      { ['A'.repeat(65)]: 'x' },
      Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`V${index}`, 'x'])),
      { BIG: 'x'.repeat(4096) },
      '[{"name":"A","value":"1"},{"name":"A","value":"2"}]',
      '{not json',
      [{ name: 'A', value: 3 }],
    ];
    for (const variables of refused) expect(hostedFunctionCreate.safeParse({ ...base, environment_variables: variables }).success, JSON.stringify(variables).slice(0, 80)).toBe(false);
  });

  it('replaces the stored set on update; a name without a value keeps its stored value, else 400', () => {
    expect(variablesAfter([{ name: 'A' }, { name: 'C', value: '3' }], { A: '1', B: '2' })).toEqual({ A: '1', C: '3' });
    let error: unknown;
    try {
      variablesAfter([{ name: 'NEW' }], { A: '1' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).meta).toMatchObject({ property: 'environment_variables' });
  });

  it('checks the handler form of each runtime and names the files it may load', () => {
    expect(handlerFormProblem('nodejs22.x', 'index.handler')).toBeUndefined();
    expect(handlerFormProblem('nodejs22.x', 'src/api.main')).toBeUndefined();
    expect(handlerFormProblem('nodejs22.x', 'index')).toBeDefined();
    expect(handlerFormProblem('nodejs22.x', '../up.handler')).toBeDefined();
    expect(handlerFormProblem('java21', 'com.example.Quotes::handle')).toBeUndefined();
    expect(handlerFormProblem('java21', 'Quotes.handle')).toBeDefined();
    expect(handlerFormProblem('dotnet8', 'Quotes::Quotes.Function::Handle')).toBeUndefined();
    expect(handlerFormProblem('dotnet8', 'Quotes::Handle')).toBeDefined();
    expect(handlerFiles('nodejs22.x', 'src/api.main')).toEqual(['src/api.js', 'src/api.mjs', 'src/api.cjs']);
    expect(handlerFiles('python3.13', 'app/routes.quote')).toEqual(['app/routes.py']);
    expect(handlerFiles('python3.13', 'app.routes.quote')).toEqual(['app/routes.py']);
  });
});
