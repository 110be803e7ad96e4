import { createApp } from 'vue';
// Registers <kasir-checkout> (Vue renders it as a custom element: see isCustomElement in vite.config.ts).
import '@kasir/checkout';
import App from './App.vue';
import '../shop.css';

createApp(App).mount('#app');
