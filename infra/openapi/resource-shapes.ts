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

/** The entry file whose imports reach every declared resource (the registry). */
const ENTRY = 'shared/app/resources.ts';

/** Nesting the converter follows before it writes `{}` (any value): rendered JSON is never deeper. */
const MAX_DEPTH = 12;

/** A program over the app's resource registry, with the repository's compiler options. */
function program(): ts.Program {
  const configPath = resolve(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram([resolve(ROOT, ENTRY)], { ...parsed.options, noEmit: true, skipLibCheck: true });
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
    const declared = signature ? this.schema(checker.getReturnTypeOfSignature(signature), 0, []) : {};
    if (declared.properties || depth > 3 || !('body' in fn) || !fn.body) return declared;
    const body = fn.body as ts.Node;
    const parts: JsonSchema[] = [];
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
          assigned[node.left.name.text] = this.schema(checker.getTypeAtLocation(node.right), 1, []);
        }
        if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
      };
      visit(body);
      // A property assigned after the start may be assigned on one path only: not required.
      if (Object.keys(assigned).length > 0) parts.push({ type: 'object', properties: assigned });
    };
    if (ts.isBlock(body)) {
      const visit = (node: ts.Node): void => {
        if (ts.isReturnStatement(node) && node.expression) fromExpression(node.expression);
        if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
      };
      visit(body);
    } else fromExpression(body as ts.Expression);
    const merged: JsonSchema = { type: 'object' };
    const properties: Record<string, JsonSchema> = {};
    const required = new Set<string>();
    for (const part of parts) {
      Object.assign(properties, part.properties as Record<string, JsonSchema> | undefined);
      for (const name of (part.required as string[] | undefined) ?? []) required.add(name);
    }
    if (Object.keys(properties).length === 0) return declared;
    merged.properties = properties;
    if (required.size > 0) merged.required = [...required];
    // Properties written under computed names are not listed: the description allows more.
    merged.additionalProperties = {};
    return merged;
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
      const schema = constantOf(property) ?? this.schema(propertyType, depth + 1, seen);
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
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
}

/** Where the shapes are committed (the description reads them in every runtime, as data). */
export const RESOURCE_SHAPES_FILE = resolve(ROOT, 'shared/app/resource-shapes.json');

/** The committed file's text: the shapes, two-space indented, with a closing newline. */
export function resourceShapesText(): string {
  return `${JSON.stringify(resourceShapes(), null, 2)}\n`;
}
