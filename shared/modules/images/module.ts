/**
 * The images module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, collectionRoutes } from '../../http/routes';
import { imageDeclaration } from './images';
import { MAX_UPLOAD_BODY_BYTES } from './limits';

export const imagesModule = defineModule({
  name: 'images',
  families: {
    images: {
      entry: 'handlers/http/images.ts',
      // sharp decodes up to 40 megapixels (160 MB a frame) and encodes five files from it.
      memoryMb: 1536,
      description: 'Product images: /images (uploads sized with sharp)',
      grants: { table: 'readWrite', secrets: 'none', email: false, sendsTo: ['event-notifications'], objects: [{ bucket: 'apps', prefix: 'images/', put: true }] },
      nativeModules: ['sharp'],
    },
  },
  routes: [
    // Images belong to the products: they ask for the products' permissions. The upload is written out below.
    ...collectionRoutes({ family: 'images', path: '/api/v1/images', id: 'image_id', access: { list: allow('products', 'read'), read: allow('products', 'read'), delete: allow('products', 'delete') } }),
    { method: 'POST', path: '/api/v1/images', family: 'images', access: allow('products', 'create'), body: 'multipart', multipart: { maxBytes: MAX_UPLOAD_BODY_BYTES } },
  ],
  declarations: [imageDeclaration],
});
