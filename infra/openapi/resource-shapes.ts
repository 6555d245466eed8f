/**
 * The JSON shapes of every declared resource, read from the code that renders them: for each
 * `declareResource({...})` of the app, the return type of its `toJson` as the TypeScript checker
 * infers it, written as a JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). The API
 * description (shared/rest/openapi.ts) lays the declarations' links, sub-collections and
 * embedded objects over these shapes. Nobody writes a resource's schema: a new module's
 * declaration gets one when `npm run generate:api` runs, and test/app/api-description-files
 * fails while the committed file differs from what the code renders.
 *
 * The checker is TypeScript 5's (the workspace packages/client carries it for openapi-typescript):
 * the root's TypeScript 7 has no compiler API.
 */
import ts from '../../packages/client/node_modules/typescript/lib/typescript.js';
import { resolve } from 'node:path';
import { withoutCitations } from '../../shared/rest/openapi';

/** A JSON Schema object, as the description holds it. */
export type JsonSchema = Record<string, unknown>;

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The entry files whose imports reach every declared resource (the registry) and every action
 * the API description documents (whose `declareAnswer` shapes are read).
 */
const ENTRIES = ['shared/app/resources.ts', 'handlers/http/openapi.ts'];

/** Nesting the converter follows before it writes `{}` (any value): rendered JSON is never deeper. */
const MAX_DEPTH = 12;

let built: ts.Program | undefined;

/** A program over the app's resource registry and documented actions, with the repository's compiler options (built once a process). */
function program(): ts.Program {
  built ??= newProgram();
  return built;
}

function newProgram(): ts.Program {
  const configPath = resolve(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram(ENTRIES.map((entry) => resolve(ROOT, entry)), { ...parsed.options, noEmit: true, skipLibCheck: true });
}

/** The `toJson` function node of a declaration's object literal, or undefined. */
function toJsonOf(literal: ts.ObjectLiteralExpression): ts.SignatureDeclaration | undefined {
  for (const property of literal.properties) {
    if (property.name === undefined || !ts.isIdentifier(property.name) || property.name.text !== 'toJson') continue;
    if (ts.isMethodDeclaration(property)) return property;
    if (ts.isPropertyAssignment(property) && (ts.isArrowFunction(property.initializer) || ts.isFunctionExpression(property.initializer))) return property.initializer;
  }
  return undefined;
}

/** The string value of a declaration's `name` property. */
function nameOf(literal: ts.ObjectLiteralExpression, checker: ts.TypeChecker): string | undefined {
  for (const property of literal.properties) {
    if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name) || property.name.text !== 'name') continue;
    const type = checker.getTypeAtLocation(property.initializer);
    if (type.isStringLiteral()) return type.value;
  }
  return undefined;
}

/** Writes TypeScript types as JSON Schemas. */
class ShapeWriter {
  constructor(private readonly checker: ts.TypeChecker) {}

  /**
   * The schema of what a function returns. A function typed as returning `Record<string, unknown>`
   * tells nothing, so its body is read: the object literals its returned variable starts from and
   * is assigned (`Object.assign(json, {...})`, `json.name = ...`), or what a called function returns.
   */
  returned(fn: ts.SignatureDeclaration, depth: number): JsonSchema {
    const checker = this.checker;
    const signature = checker.getSignatureFromDeclaration(fn);
    // An async function's value is what its promise resolves to.
    const declared = signature ? this.schema(awaited(checker, checker.getReturnTypeOfSignature(signature)), 0, []) : {};
    if (declared.properties || depth > 3 || !('body' in fn) || !fn.body) return declared;
    const body = fn.body as ts.Node;
    // One group of parts per return statement: the parts of one add up, the groups are alternatives.
    const groups: JsonSchema[][] = [];
    let parts: JsonSchema[] = [];
    const fromExpression = (expression: ts.Expression): void => {
      const bare = ts.isParenthesizedExpression(expression) ? expression.expression : expression;
      if (ts.isIdentifier(bare)) return fromVariable(bare);
      if (ts.isCallExpression(bare)) {
        const target = checker.getResolvedSignature(bare)?.getDeclaration();
        if (target && 'body' in target) {
          parts.push(this.returned(target as ts.SignatureDeclaration, depth + 1));
          return;
        }
      }
      parts.push(this.schema(checker.getTypeAtLocation(bare), 0, []));
      // `{ a, ...figuresJson(x) }`: what a loosely typed spread call adds, read from its body.
      if (ts.isObjectLiteralExpression(bare)) for (const spread of this.looseSpreads(bare)) parts.push(spread);
    };
    const fromVariable = (identifier: ts.Identifier): void => {
      const symbol = checker.getSymbolAtLocation(identifier);
      const declaration = symbol?.valueDeclaration;
      if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer) parts.push(this.schema(checker.getTypeAtLocation(declaration.initializer), 0, []));
      const assigned: Record<string, JsonSchema> = {};
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && node.expression.getText() === 'Object.assign' && node.arguments[0] && ts.isIdentifier(node.arguments[0]) && checker.getSymbolAtLocation(node.arguments[0]) === symbol) {
          for (const source of node.arguments.slice(1)) parts.push(this.schema(checker.getTypeAtLocation(source), 0, []));
        }
        if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && ts.isIdentifier(node.left.expression) && checker.getSymbolAtLocation(node.left.expression) === symbol) {
          assigned[node.left.name.text] = integerWhereCounted(node.left.name.text, this.schema(checker.getTypeAtLocation(node.right), 1, []));
        }
        if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
      };
      visit(body);
      // A property assigned after the start may be assigned on one path only: not required.
      if (Object.keys(assigned).length > 0) parts.push({ type: 'object', properties: assigned });
    };
    const fromReturn = (expression: ts.Expression): void => {
      parts = [];
      fromExpression(expression);
      groups.push(parts);
    };
    if (ts.isBlock(body)) {
      const visit = (node: ts.Node): void => {
        if (ts.isReturnStatement(node) && node.expression) fromReturn(node.expression);
        if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
      };
      visit(body);
    } else fromReturn(body as ts.Expression);
    return mergeReturns(groups) ?? declared;
  }

  /**
   * The schema of the JSON `body` an action answers with: each `return { status, body }` of the
   * function (through `as`, `await` and parentheses; a called function's return read as
   * `returned` reads it), the returns being alternatives.
   */
  answered(fn: ts.SignatureDeclaration): JsonSchema | undefined {
    if (!('body' in fn) || !fn.body) return undefined;
    const checker = this.checker;
    const groups: JsonSchema[][] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isReturnStatement(node) && node.expression && ts.isObjectLiteralExpression(node.expression)) {
        for (const property of node.expression.properties) {
          if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name) || property.name.text !== 'body') continue;
          let value: ts.Expression = property.initializer;
          // `x as unknown as Record<...>` says less than `x`: the type is read inside the casts.
          while (ts.isAsExpression(value) || ts.isParenthesizedExpression(value) || ts.isNonNullExpression(value)) value = value.expression;
          const typed = this.schema(checker.getTypeAtLocation(value), 0, []);
          while (ts.isAwaitExpression(value) || ts.isParenthesizedExpression(value)) value = value.expression;
          if (!typed.properties && ts.isCallExpression(value)) {
            const target = checker.getResolvedSignature(value)?.getDeclaration();
            if (target && 'body' in target) {
              groups.push([this.returned(target as ts.SignatureDeclaration, 1)]);
              continue;
            }
          }
          groups.push([typed]);
        }
      }
      if (!ts.isFunctionLike(node) || node === fn) ts.forEachChild(node, visit);
    };
    visit(fn);
    return mergeReturns(groups);
  }

  /** Functions whose returns are being read (a renderer that renders its own kind nested is read once). */
  private readonly reading = new Set<ts.Node>();

  /**
   * A property typed loosely (`Record<string, unknown>`) read from the expression it is written
   * with in an object literal: a renderer's call (`addressJson(...)`), a `.map` of one
   * (`images.map((image) => imageJson(image))`), either branch of `a ? b : null`.
   */
  private fromInitializer(property: ts.Symbol): JsonSchema | undefined {
    const declaration = property.valueDeclaration;
    if (!declaration || !ts.isPropertyAssignment(declaration)) return undefined;
    return this.fromWritten(declaration.initializer);
  }

  private fromWritten(written: ts.Expression): JsonSchema | undefined {
    let expression = written;
    while (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isNonNullExpression(expression) || ts.isAwaitExpression(expression)) expression = expression.expression;
    if (ts.isConditionalExpression(expression)) {
      const branches = [expression.whenTrue, expression.whenFalse].map((branch) => this.fromWritten(branch) ?? this.schema(this.checker.getTypeAtLocation(branch), 1, []));
      return branches.some((branch) => Object.keys(branch).length === 0) ? undefined : mergeAlternatives(branches);
    }
    if (ts.isObjectLiteralExpression(expression)) {
      const spreads = this.looseSpreads(expression);
      return spreads.length > 0 ? mergeReturns([[this.schema(this.checker.getTypeAtLocation(expression), 1, []), ...spreads]]) : undefined;
    }
    if (!ts.isCallExpression(expression)) return undefined;
    const callee = expression.expression;
    const [first] = expression.arguments;
    if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'map' && first && (ts.isArrowFunction(first) || ts.isFunctionExpression(first))) {
      const element = (!ts.isBlock(first.body) ? this.fromWritten(first.body) : undefined) ?? this.readReturns(first);
      return element ? { type: 'array', items: element } : undefined;
    }
    const target = this.checker.getResolvedSignature(expression)?.getDeclaration();
    return target && 'body' in target ? this.readReturns(target as ts.SignatureDeclaration) : undefined;
  }

  /** The schemas of an object literal's spreads of loosely typed calls (`...figuresJson(x)`), read from the called functions. */
  private looseSpreads(literal: ts.ObjectLiteralExpression): JsonSchema[] {
    const read: JsonSchema[] = [];
    for (const property of literal.properties) {
      if (!ts.isSpreadAssignment(property) || !isLoose(this.schema(this.checker.getTypeAtLocation(property.expression), 1, []))) continue;
      const schema = this.fromWritten(property.expression);
      if (schema?.properties) read.push(schema);
    }
    return read;
  }

  /** Whether a property is written as an object literal (or a `.map` to one) that spreads a loosely typed call. */
  private spreadsLoosely(property: ts.Symbol): boolean {
    const declaration = property.valueDeclaration;
    if (!declaration || !ts.isPropertyAssignment(declaration)) return false;
    let expression: ts.Expression = declaration.initializer;
    if (ts.isCallExpression(expression) && ts.isPropertyAccessExpression(expression.expression) && expression.expression.name.text === 'map') {
      const [mapper] = expression.arguments;
      if (!mapper || !ts.isArrowFunction(mapper) || ts.isBlock(mapper.body)) return false;
      expression = mapper.body;
    }
    while (ts.isParenthesizedExpression(expression)) expression = expression.expression;
    return ts.isObjectLiteralExpression(expression) && this.looseSpreads(expression).length > 0;
  }

  /** What a computed expansion's `compute` returns (an expression body read as a written value, a call's body read). */
  computed(fn: ts.ArrowFunction | ts.FunctionExpression): JsonSchema | undefined {
    if (!ts.isBlock(fn.body)) {
      const typed = this.schema(this.checker.getTypeAtLocation(fn.body), 0, []);
      return isLoose(typed) ? this.fromWritten(fn.body) : typed;
    }
    return this.readReturns(fn);
  }

  /** `returned` of a function, once at a time (undefined when it tells no property). */
  private readReturns(fn: ts.SignatureDeclaration): JsonSchema | undefined {
    if (this.reading.has(fn)) return undefined;
    this.reading.add(fn);
    try {
      const schema = this.returned(fn, 1);
      return schema.properties ? schema : undefined;
    } finally {
      this.reading.delete(fn);
    }
  }

  /** The schema of `type`. */
  schema(type: ts.Type, depth: number, seen: readonly ts.Type[]): JsonSchema {
    if (depth > MAX_DEPTH || seen.includes(type)) return {};
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    if (flags & ts.TypeFlags.StringLiteral) return { type: 'string', enum: [(type as ts.StringLiteralType).value] };
    if (flags & ts.TypeFlags.NumberLiteral) return { type: 'number', enum: [(type as ts.NumberLiteralType).value] };
    if (flags & ts.TypeFlags.BooleanLiteral) return { type: 'boolean', enum: [this.checker.typeToString(type) === 'true'] };
    if (flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral)) return { type: 'string' };
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.Union) return this.union((type as ts.UnionType).types, depth, seen);
    if (flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.object(type, depth, [...seen, type]);
    return {};
  }

  private union(members: readonly ts.Type[], depth: number, seen: readonly ts.Type[]): JsonSchema {
    const present = members.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    const booleans = present.filter((member) => member.flags & ts.TypeFlags.BooleanLiteral);
    const rest = present.filter((member) => !(member.flags & ts.TypeFlags.BooleanLiteral));
    const schemas = rest.map((member) => this.schema(member, depth, seen));
    if (booleans.length === 2) schemas.push({ type: 'boolean' });
    else if (booleans.length === 1) schemas.push(this.schema(booleans[0]!, depth, seen));
    if (schemas.some((schema) => Object.keys(schema).length === 0)) return {};
    return mergeAlternatives(schemas);
  }

  private object(type: ts.Type, depth: number, seen: readonly ts.Type[]): JsonSchema {
    const checker = this.checker;
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: element ? this.schema(element, depth + 1, seen) : {} };
    }
    if (checker.isTupleType(type)) {
      const elements = checker.getTypeArguments(type as ts.TypeReference).map((element) => this.schema(element, depth + 1, seen));
      return { type: 'array', prefixItems: elements, items: false };
    }
    if (type.getCallSignatures().length > 0) return {};
    const symbolName = type.getSymbol()?.getName();
    if (symbolName === 'Date') return { type: 'string', format: 'date-time' };
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const propertyType = checker.getTypeOfSymbol(property);
      if (propertyType.getCallSignatures().length > 0) continue;
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0 || admitsUndefined(propertyType);
      const typed = constantOf(property) ?? this.schema(propertyType, depth + 1, seen);
      const schema = integerWhereCounted(property.getName(), isLoose(typed) || this.spreadsLoosely(property) ? (this.fromInitializer(property) ?? typed) : typed);
      const description = ts.displayPartsToString(property.getDocumentationComment(checker)).trim();
      properties[property.getName()] = description ? { ...schema, description: withoutCitations(description) } : schema;
      if (!optional) required.push(property.getName());
    }
    const result: JsonSchema = { type: 'object' };
    if (Object.keys(properties).length > 0) result.properties = properties;
    if (required.length > 0) result.required = required;
    const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    if (index) result.additionalProperties = this.schema(index.type, depth + 1, seen);
    return result;
  }
}

/**
 * Properties the contract gives as integers, which TypeScript types as `number`: counts,
 * quantities, sizes, durations, HTTP statuses, version numbers, card expiry parts. Money and
 * rates are not here (decimals in the currency's major unit).
 */
const INTEGER_NAMES = new Set([
  'quantity', 'attempt', 'uses', 'max_uses', 'status_code', 'timeout', 'memory_mb', 'bytes', 'files', 'width', 'height',
  'expires_in', 'exp_month', 'exp_year', 'billing_interval', 'number', 'duplicate_payment_timeout', 'total_items', 'total_pages', 'current_page',
]);

/** Name endings that mean a whole number: `items_count`, `items_quantity`, `package_bytes`, `duration_ms`, `expires_in_seconds`, `version_number`. */
const INTEGER_ENDINGS = /_(count|quantity|bytes|ms|seconds|number|days)$/;

/** `number` made `integer` in a property's schema when its name is one of a whole number (nullable kept). */
function integerWhereCounted(name: string, schema: JsonSchema): JsonSchema {
  if (!INTEGER_NAMES.has(name) && !INTEGER_ENDINGS.test(name)) return schema;
  if (schema.type === 'number') return { ...schema, type: 'integer' };
  if (Array.isArray(schema.type) && schema.type.includes('number')) return { ...schema, type: schema.type.map((type) => (type === 'number' ? 'integer' : type)) };
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') return { ...schema, items: integerWhereCounted(name, schema.items as JsonSchema) };
  return schema;
}

/** An object schema that lists no property (or an array of them, or any value): what a `Record<string, unknown>` gives. */
function isLoose(schema: JsonSchema): boolean {
  if (Object.keys(schema).length === 0) return true;
  if (schema.type === 'array') return typeof schema.items === 'object' && isLoose(schema.items as JsonSchema);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).some((alternative) => alternative.type !== 'null' && isLoose(alternative));
  return types.includes('object') && !schema.properties;
}

/**
 * A part as one object: an `anyOf` of objects (`{ ...head, ...(shown ? { key } : {}) }`) is one
 * object with every alternative's properties, required where every alternative has them.
 */
function objectAlternatives(part: JsonSchema): JsonSchema[] {
  const alternatives = part.anyOf as JsonSchema[] | undefined;
  if (!alternatives || part.properties || !alternatives.every((alternative) => alternative.type === 'object')) return [part];
  const required = alternatives.map((alternative) => new Set((alternative.required as string[] | undefined) ?? []));
  const properties = Object.assign({}, ...alternatives.map((alternative) => alternative.properties ?? {})) as Record<string, JsonSchema>;
  return [{ type: 'object', properties, required: Object.keys(properties).filter((name) => required.every((set) => set.has(name))) }];
}

/** What a promise type resolves to (any other type as it is). */
function awaited(checker: ts.TypeChecker, type: ts.Type): ts.Type {
  return checker.getAwaitedType(type) ?? type;
}

/**
 * One object schema from the parts of each return (parts of one return add up; returns are
 * alternatives, so a property is required only when every return has it), or undefined when no
 * part lists a property.
 */
function mergeReturns(groups: readonly JsonSchema[][]): JsonSchema | undefined {
  const properties: Record<string, JsonSchema> = {};
  let required: Set<string> | undefined;
  // `return null` on one path: the object or null.
  const nullable = groups.some((group) => group.length > 0 && group.every((part) => part.type === 'null'));
  for (const group of groups) {
    if (group.length > 0 && group.every((part) => part.type === 'null')) continue;
    const own = new Set<string>();
    for (const part of group.flatMap(objectAlternatives)) {
      Object.assign(properties, part.properties as Record<string, JsonSchema> | undefined);
      for (const name of (part.required as string[] | undefined) ?? []) own.add(name);
    }
    required = required === undefined ? own : new Set([...required].filter((name) => own.has(name)));
  }
  if (Object.keys(properties).length === 0) return undefined;
  const merged: JsonSchema = { type: nullable ? ['object', 'null'] : 'object', properties };
  if (required && required.size > 0) merged.required = [...required];
  // Properties written under computed names are not listed: the description allows more.
  merged.additionalProperties = {};
  return merged;
}

/**
 * What each computed expansion of a declaration (`virtuals: { options: { compute } }`) answers,
 * read from its `compute` function, for the expansions that name no resource; kept in the
 * resource's shape under this key (the description shows them only with `expand=<name>`).
 */
export const VIRTUAL_SHAPES = 'x-virtuals';

function virtualShapes(literal: ts.ObjectLiteralExpression, writer: ShapeWriter): Record<string, JsonSchema> {
  const shapes: Record<string, JsonSchema> = {};
  for (const property of literal.properties) {
    if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name) || property.name.text !== 'virtuals' || !ts.isObjectLiteralExpression(property.initializer)) continue;
    for (const virtual of property.initializer.properties) {
      if (!ts.isPropertyAssignment(virtual) || !ts.isObjectLiteralExpression(virtual.initializer)) continue;
      const name = virtual.name.getText();
      if (literalProperty(virtual.initializer, 'resource') !== undefined) continue;
      for (const field of virtual.initializer.properties) {
        if (!ts.isPropertyAssignment(field) || field.name.getText() !== 'compute') continue;
        const compute = field.initializer;
        if (!ts.isArrowFunction(compute) && !ts.isFunctionExpression(compute)) continue;
        const schema = writer.computed(compute);
        if (schema?.properties) shapes[name] = schema;
      }
    }
  }
  return shapes;
}

/** `object: 'cart'` written as a literal: the kind a rendered object names, which widens to `string` in the inferred type. */
function constantOf(property: ts.Symbol): JsonSchema | undefined {
  const declaration = property.valueDeclaration;
  if (property.getName() !== 'object' || !declaration || !ts.isPropertyAssignment(declaration) || !ts.isStringLiteral(declaration.initializer)) return undefined;
  return { type: 'string', const: declaration.initializer.text };
}

/** Whether a union type has `undefined` (an optional property's value). */
function admitsUndefined(type: ts.Type): boolean {
  if (type.flags & ts.TypeFlags.Undefined) return true;
  return (type.flags & ts.TypeFlags.Union) !== 0 && (type as ts.UnionType).types.some((member) => (member.flags & ts.TypeFlags.Undefined) !== 0);
}

/**
 * One schema for alternatives: enums of one type merge (`'a' | 'b' | null` is a string enum with
 * null), plain types merge into a type list, anything else stays `anyOf`.
 */
function mergeAlternatives(schemas: JsonSchema[]): JsonSchema {
  if (schemas.length === 1) return schemas[0]!;
  const nullable = schemas.some((schema) => schema.type === 'null');
  const others = schemas.filter((schema) => schema.type !== 'null');
  const types = new Set(others.map((schema) => schema.type));
  const plain = others.every((schema) => Object.keys(schema).length === 1 && typeof schema.type === 'string');
  if (others.length > 0 && types.size === 1 && others.every((schema) => Array.isArray(schema.enum) && Object.keys(schema).length === 2)) {
    const values = [...new Set(others.flatMap((schema) => schema.enum as unknown[]))];
    const type = [...types][0] as string;
    if (type === 'boolean' && values.length === 2) return nullable ? { type: ['boolean', 'null'] } : { type: 'boolean' };
    return nullable ? { type: [type, 'null'], enum: [...values, null] } : { type, enum: values };
  }
  if (plain) {
    const list = [...new Set(others.map((schema) => schema.type as string))];
    if (nullable) list.push('null');
    return { type: list.length === 1 ? list[0] : list };
  }
  // A plain type absorbs its own enums (`string | 'a'` is a string).
  const unique = others.filter((schema, index) => others.findIndex((other) => JSON.stringify(other) === JSON.stringify(schema)) === index);
  const alternatives = nullable ? [...unique, { type: 'null' }] : unique;
  return alternatives.length === 1 ? alternatives[0]! : { anyOf: alternatives };
}

/**
 * The JSON Schema of every declared resource's `toJson` result, by declaration name, in name order.
 * Fails when two declarations share a name or one has no `toJson` the checker can read.
 */
export function resourceShapes(): Record<string, JsonSchema> {
  const built = program();
  const checker = built.getTypeChecker();
  const writer = new ShapeWriter(checker);
  const shapes: Record<string, JsonSchema> = {};
  for (const file of built.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.startsWith(resolve(ROOT, 'shared') + '/')) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'declareResource') {
        const [argument] = node.arguments;
        if (argument && ts.isObjectLiteralExpression(argument)) {
          const name = nameOf(argument, checker);
          const toJson = toJsonOf(argument);
          if (!name || !toJson) throw new Error(`${file.fileName}: a declareResource call without a literal name or a toJson function`);
          if (shapes[name]) throw new Error(`Two declarations are named "${name}"`);
          const signature = checker.getSignatureFromDeclaration(toJson);
          if (!signature) throw new Error(`${file.fileName}: the toJson of "${name}" has no signature`);
          shapes[name] = writer.returned(toJson, 0);
          const computed = virtualShapes(argument, writer);
          if (Object.keys(computed).length > 0) shapes[name][VIRTUAL_SHAPES] = computed;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
}

/** The function a `declareAnswer` argument names: a function declaration, or a variable holding one (or `withBody(schema, fn)`'s last argument). */
function functionNamed(expression: ts.Expression, checker: ts.TypeChecker): ts.SignatureDeclaration | undefined {
  let symbol = checker.getSymbolAtLocation(expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  if (!declaration) return undefined;
  if (ts.isFunctionDeclaration(declaration)) return declaration;
  if (!ts.isVariableDeclaration(declaration) || !declaration.initializer) return undefined;
  let value: ts.Expression = declaration.initializer;
  if (ts.isCallExpression(value)) value = value.arguments[value.arguments.length - 1] ?? value;
  return ts.isArrowFunction(value) || ts.isFunctionExpression(value) ? value : undefined;
}

/** The string value of property `name` of an object literal, when it is a string literal. */
function literalProperty(literal: ts.ObjectLiteralExpression, name: string): string | undefined {
  for (const property of literal.properties) {
    if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && property.name.text === name && ts.isStringLiteralLike(property.initializer)) return property.initializer.text;
  }
  return undefined;
}

/**
 * The JSON Schema of every answer shape the actions declare (`declareAnswer(action, { shape:
 * 'payment_options', ... })`), by shape name, in name order: the `body` the action returns, or
 * what the function named as the third argument returns. Fails when a shape's code tells no
 * property, or two declarations of one name read different code.
 */
function answerShapes(built: ts.Program, writer: ShapeWriter): Record<string, JsonSchema> {
  const checker = built.getTypeChecker();
  const shapes: Record<string, JsonSchema> = {};
  for (const file of built.getSourceFiles()) {
    if (file.isDeclarationFile || !(file.fileName.startsWith(resolve(ROOT, 'shared') + '/') || file.fileName.startsWith(resolve(ROOT, 'handlers') + '/'))) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'declareAnswer') {
        const [action, answer, from] = node.arguments;
        const name = answer && ts.isObjectLiteralExpression(answer) ? literalProperty(answer, 'shape') : undefined;
        if (name && action) {
          const where = `${file.fileName}: declareAnswer(${action.getText()}, { shape: '${name}' })`;
          const source = functionNamed(from ?? action, checker);
          if (!source) throw new Error(`${where}: the function it reads is not found`);
          const shape = from ? writer.returned(source, 0) : writer.answered(source);
          if (!shape?.properties) throw new Error(`${where}: no property of the answer can be read`);
          if (shapes[name] && JSON.stringify(shapes[name]) !== JSON.stringify(shape)) throw new Error(`${where}: another declaration of the shape reads another answer`);
          shapes[name] = shape;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
}

/** Where the answer shapes are committed (beside the resource shapes, read the same way). */
export const ANSWER_SHAPES_FILE = resolve(ROOT, 'shared/app/answer-shapes.json');

/** The committed answer shapes file's text. */
export function answerShapesText(): string {
  const built = program();
  return `${JSON.stringify(answerShapes(built, new ShapeWriter(built.getTypeChecker())), null, 2)}\n`;
}

/** Where the shapes are committed (the description reads them in every runtime, as data). */
export const RESOURCE_SHAPES_FILE = resolve(ROOT, 'shared/app/resource-shapes.json');

/** The committed file's text: the shapes, two-space indented, with a closing newline. */
export function resourceShapesText(): string {
  return `${JSON.stringify(resourceShapes(), null, 2)}\n`;
}
