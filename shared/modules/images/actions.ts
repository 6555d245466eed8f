/** The images module's HTTP actions: what the route families (handlers/http) bind to routes. */
export { deleteImageAction, getImageAction, listImagesAction } from './image-actions';
export { uploadImageAction } from './upload-image-action';
