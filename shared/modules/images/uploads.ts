/** The images module's upload action (multipart, sized with sharp): only the images family opens this door. */
export { uploadImageAction } from './upload-image-action';
