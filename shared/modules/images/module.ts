/**
 * The images module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow } from '../../http/routes';
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
    { method: 'GET', path: '/api/v1/images', family: 'images', access: allow('products', 'read') },
    {
      method: 'POST',
      path: '/api/v1/images',
      family: 'images',
      access: allow('products', 'create'),
      upload: { maxBytes: MAX_UPLOAD_BODY_BYTES },
    },
    { method: 'GET', path: '/api/v1/images/{image_id}', family: 'images', access: allow('products', 'read') },
    { method: 'DELETE', path: '/api/v1/images/{image_id}', family: 'images', access: allow('products', 'delete') },
  ],
  declarations: [imageDeclaration],
});
