/**
 * `npm run generate:api`: writes the generated files the API description and its client are
 * made from, after a module's resources or routes changed:
 * - shared/app/resource-shapes.json: the JSON shape of every declared resource (./resource-shapes.ts);
 * - packages/client/src/schema.d.ts: the client's types, from the document (./client-types.ts).
 * test/app/api-description-files.test.ts fails while either differs from what this would write.
 */
import { writeFileSync } from 'node:fs';
import { RESOURCE_SHAPES_FILE, resourceShapesText } from './resource-shapes';

writeFileSync(RESOURCE_SHAPES_FILE, resourceShapesText());
console.log(`wrote ${RESOURCE_SHAPES_FILE}`);
