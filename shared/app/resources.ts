/**
 * The resource registry: every declared resource, listed by name. Expansion follows a link
 * sub-collection or embedded array only to a resource listed here, whichever family bundle is
 * running, and test/rest/declarations.test.ts checks that every target is listed. Loading this
 * file installs the registry in the REST engine (`installResources`), which names no resource
 * itself; the app's families, workers and jobs load it.
 */
import { modules } from './modules';
import { installResources, lookupOf, type DeclarationLookup, type ResourceDeclaration } from '../rest/declarations';

/** Every declared resource of the platform: what the modules' manifests declare. */
export function resources(): readonly ResourceDeclaration[] {
  return modules.flatMap((manifest): readonly ResourceDeclaration[] => manifest.declarations);
}

let lookup: DeclarationLookup | undefined;

/** A registered declaration by name, or undefined (the lookup is built on first use). */
export function declarationOf(name: string): ResourceDeclaration | undefined {
  lookup ??= lookupOf(resources());
  return lookup(name);
}

installResources(declarationOf);
