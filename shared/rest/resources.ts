/**
 * The resource registry: every declared resource, listed by name. Expansion follows a link
 * sub-collection or embedded array only to a resource listed here, whichever family bundle is
 * running, and test/rest/declarations.test.ts checks that every target is listed.
 *
 * The resource modules import the REST engine (render, expand), which reads this registry:
 * the cycle is harmless because the list is only read when a request is rendered, through
 * `declarationOf`, never while modules load.
 */
import { authDeclaration } from '../auth/auths';
import { imageDeclaration } from '../catalog/images/images';
import { productDeclaration } from '../catalog/products';
import { cartDeclaration, cartItemDeclaration } from '../commerce/carts/carts';
import { orderDeclaration, orderItemDeclaration } from '../commerce/orders/orders';
import { paymentMethodDeclaration } from '../commerce/payment-methods/payment-methods';
import { paymentDeclaration } from '../commerce/payments/payment-records';
import { promotionDeclaration } from '../commerce/promotions/promotions';
import { shippingMethodDeclaration } from '../commerce/shipping/shipping-methods';
import { customerDeclaration } from '../customers/customers';
import { eventDeclaration } from '../events/event-records';
import { eventSubscriptionDeclaration } from '../events/subscriptions/event-subscriptions';
import { licenseDeclaration, licenseRequestDeclaration } from '../licenses/requests/license-request-records';
import { licenseServiceDeclaration } from '../licenses/services';
import { aliasDeclaration, appDeclaration, deploymentDeclaration, versionDeclaration } from '../hosting/apps/apps';
import { lookupOf, type DeclarationLookup, type ResourceDeclaration } from './declarations';

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

/** A registered declaration by name, or undefined (built on first use, after every module loaded). */
export function declarationOf(name: string): ResourceDeclaration | undefined {
  lookup ??= lookupOf(resources());
  return lookup(name);
}
