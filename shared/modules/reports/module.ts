/**
 * The reports module as the app composes it (data only, listed in shared/app/modules.ts): the
 * sales report (commerce.md §12), read from the day aggregates that checkout, renewals and
 * refunds keep in their own transactions.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';

export const reportsModule = defineModule({
  name: 'reports',
  families: {
    reports: {
      entry: 'handlers/http/reports.ts',
      memoryMb: 256,
      description: 'Reports: /reports/sales',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: [] },
    },
  },
  routes: [{ method: 'GET', path: '/api/v1/reports/sales', family: 'reports', access: allow('reports', 'read') }],
  declarations: [],
});
