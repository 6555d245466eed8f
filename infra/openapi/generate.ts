/**
 * `npm run generate:api`: writes the generated files the API description and its client are
 * made from, after a module's resources or routes changed:
 * - shared/app/resource-shapes.json: the JSON shape of every declared resource (./resource-shapes.ts);
 * - shared/app/answer-shapes.json: the JSON shape of every specific answer an action declares (`declareAnswer`);
 * - packages/client/src/schema.ts: the client's types, from the document (./client-types.ts).
 * test/app/api-description-files.test.ts fails while either differs from what this would write.
 * The shapes come first: the document the client types are made from reads them.
 */
import { writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { ANSWER_SHAPES_FILE, answerShapesText, RESOURCE_SHAPES_FILE, resourceShapesText } from './resource-shapes';

if (process.argv[2] !== '--client') {
  writeFileSync(RESOURCE_SHAPES_FILE, resourceShapesText());
  console.log(`wrote ${RESOURCE_SHAPES_FILE}`);
  writeFileSync(ANSWER_SHAPES_FILE, answerShapesText());
  console.log(`wrote ${ANSWER_SHAPES_FILE}`);
  // A fresh process reads the new shapes (this one may have loaded the old file already).
  const client = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--client'], { stdio: 'inherit' });
  process.exit(client.status ?? 1);
} else {
  const { CLIENT_TYPES_FILE, clientTypesText } = await import('./client-types');
  writeFileSync(CLIENT_TYPES_FILE, await clientTypesText());
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
}
