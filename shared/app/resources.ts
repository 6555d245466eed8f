/**
 * The resource registry: every declared resource, listed by name. Expansion follows a link
 * sub-collection or embedded array only to a resource listed here, whichever family bundle is
 * running, and test/rest/declarations.test.ts checks that every target is listed. Loading this
 * file installs the registry in the REST engine (`installResources`), which names no resource
 * itself; the app's families, workers and jobs load it.
 */
import { authDeclaration } from '../modules/identity';
import { imageDeclaration } from '../modules/images';
import { productDeclaration } from '../modules/catalog';
import { cartDeclaration, cartItemDeclaration } from '../modules/carts';
import { orderDeclaration, orderItemDeclaration } from '../modules/orders';
import { paymentMethodDeclaration } from '../modules/payment-methods';
import { paymentDeclaration } from '../modules/payments';
import { promotionDeclaration } from '../modules/promotions';
import { shippingMethodDeclaration } from '../modules/shipping';
import { customerDeclaration } from '../modules/customers';
import { eventDeclaration, eventSubscriptionDeclaration } from '../modules/events';
import { licenseDeclaration, licenseRequestDeclaration, licenseServiceDeclaration } from '../modules/licenses';
import { aliasDeclaration, appDeclaration, deploymentDeclaration, versionDeclaration } from '../modules/hosting';
import { installResources, lookupOf, type DeclarationLookup, type ResourceDeclaration } from '../rest/declarations';

/** Every declared resource of the platform. */
export function resources(): readonly ResourceDeclaration[] {
  return [
    authDeclaration,
    productDeclaration,
    imageDeclaration,
    customerDeclaration,
    paymentMethodDeclaration,
    cartDeclaration,
    cartItemDeclaration,
    paymentDeclaration,
    orderDeclaration,
    orderItemDeclaration,
    promotionDeclaration,
    shippingMethodDeclaration,
    eventSubscriptionDeclaration,
    eventDeclaration,
    licenseRequestDeclaration,
    licenseDeclaration,
    licenseServiceDeclaration,
    appDeclaration,
    versionDeclaration,
    deploymentDeclaration,
    aliasDeclaration,
  ];
}

let lookup: DeclarationLookup | undefined;

/** A registered declaration by name, or undefined (the lookup is built on first use). */
export function declarationOf(name: string): ResourceDeclaration | undefined {
  lookup ??= lookupOf(resources());
  return lookup(name);
}

installResources(declarationOf);
