/**
 * The images module's HTTP actions: what the route families (handlers/http) bind to routes. The
 * upload is behind its own door (./uploads.ts): it pulls in sharp, which only the images
 * family's bundle carries (the API description's family binds the other three).
 */
export { deleteImageAction, getImageAction, listImagesAction } from './image-actions';
