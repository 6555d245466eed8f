/**
 * Every declared resource, imported for its registration: expansion follows a link only to a
 * resource whose declaration is loaded, whichever family bundle is running.
 */
import '../auth/auths';
import '../catalog/products';
import '../customers/customers';
import '../commerce/payments/payment-records';
import '../commerce/orders/orders';
import '../commerce/carts/carts';
import '../commerce/promotions/promotions';
import '../commerce/shipping/shipping-methods';
