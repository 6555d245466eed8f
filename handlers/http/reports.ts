/** Lambda entry point of the `reports` route family (commerce.md §12). */
import { salesReportAction } from '../../shared/modules/reports/actions';
import { defineFamily, lambdaHandler } from '../../shared/app/families';
import { declareAnswer } from '../../shared/http/types';

export const family = defineFamily('reports', {
  'GET /api/v1/reports/sales': salesReportAction,
});

export const handler = lambdaHandler(family);

// What the report answers, for the API description (declared here, beside the table).
declareAnswer(salesReportAction, { shape: 'sales_report', summary: 'Retrieve the sales report', description: 'The sales of the range in one currency, bucketed by day or month in the asked time zone.' });
