/** The images module's one door: what other modules, flows and the app may use of it. */
export { imageUnlinkWork } from './delete-image';
export { imageDeclaration, imageFormattedShape, imageJson, type ImageFacts } from './images';
export { MAX_PRODUCT_IMAGES, MAX_UPLOAD_BODY_BYTES } from './limits';
export { productImagesChange, type ProductImagesChange } from './product-images';
export { imageFilesWork } from './remove-image-files';
