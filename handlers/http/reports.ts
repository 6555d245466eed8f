/** Lambda entry point of the `reports` route family (commerce.md §12). */
import { salesReportAction } from '../../shared/modules/reports/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';

export const family = defineFamily('reports', {
  'GET /api/v1/reports/sales': salesReportAction,
});

export const handler = lambdaHandler(family);
