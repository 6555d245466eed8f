/**
 * The promotions module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allowCrud, collectionRoutes } from '../../http/routes';
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
    ...collectionRoutes({ family: 'promotions', path: '/api/v1/promotions', id: 'promotion_id', access: allowCrud('promotions') }),
  ],
  declarations: [promotionDeclaration],
});
