/**
 * The promotions module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';
import { promotionDeclaration } from './promotions';

export const promotionsModule = defineModule({
  name: 'promotions',
  families: {
    promotions: {
      entry: 'handlers/http/promotions.ts',
      memoryMb: 256,
      description: 'Promotions (coupon codes): /promotions',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/promotions', family: 'promotions', access: allow('promotions', 'read') },
    { method: 'POST', path: '/api/v1/promotions', family: 'promotions', access: allow('promotions', 'create') },
    { method: 'GET', path: '/api/v1/promotions/{promotion_id}', family: 'promotions', access: allow('promotions', 'read') },
    { method: 'POST', path: '/api/v1/promotions/{promotion_id}', family: 'promotions', access: allow('promotions', 'update') },
    { method: 'DELETE', path: '/api/v1/promotions/{promotion_id}', family: 'promotions', access: allow('promotions', 'delete') },
  ],
  declarations: [promotionDeclaration],
});
