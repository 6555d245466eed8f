/**
 * Rendering of API answers for declared resources: JSON with absolute links, `formatted`
 * twins, `expand` (links, embedded arrays and virtual expansions such as `options`, at every
 * depth), then `show`/`hide` (conventions.md §8–§14), for single resources and list pages.
 * Resource actions call these and nothing else to shape their output.
 */
import type { ResourceDeclaration } from './declarations';
import { expandResources, renderStored } from './expand';
import { parseExpand, withLegacyOptions } from './paths';
import type { RenderContext } from './render-context';
import { applyShowHide } from './show-hide';

/** One resource, fully rendered. */
export async function renderResource(
  declaration: ResourceDeclaration,
  stored: unknown,
  context: RenderContext,
): Promise<Record<string, unknown>> {
  const json = renderStored(declaration, stored, context);
  const tree = parseExpand(withLegacyOptions(context.query.expand, context.query), 'single');
  await expandResources([{ json, declaration, stored }], tree, context, false);
  return applyShowHide(json, context.showHide);
}

/** The elements of a list page, fully rendered (expand with list limits, show/hide per element). */
export async function renderElements(
  declaration: ResourceDeclaration,
  stored: unknown[],
  context: RenderContext,
): Promise<Record<string, unknown>[]> {
  const elements = stored.map((item) => renderStored(declaration, item, context));
  const tree = parseExpand(withLegacyOptions(context.query.expand, context.query), 'list');
  await expandResources(elements.map((json, index) => ({ json, declaration, stored: stored[index] })), tree, context, true);
  return elements.map((element) => applyShowHide(element, context.showHide));
}
