/*
 * A small framework-free storefront for Cartwheel's hosted apps (hosting.md): it reads the
 * account facts the platform injects (settings/account.js), calls the API on its own origin
 * (/api/v1, no CORS), lists products, builds a cart, pays with a card and shows the receipt with
 * its order lines and license codes, polling while a code is pending (licenses.md §7).
 */
(function () {
  'use strict';
  var settings = window.__settings || {};
  var account = settings.account || {};
  var API = '/api/v1/';
  var cart = new Map(); // product_id -> { product, quantity }
  var token = null;

  function $(id) { return document.getElementById(id); }
  function text(tag, value, className) {
    var node = document.createElement(tag);
    node.textContent = value;
    if (className) node.className = className;
    return node;
  }
  function money(amount, currency) {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD' }).format(Number(amount));
  }

  /** One API call on this origin; answers the parsed body or throws with the API's message. */
  async function api(path, options) {
    options = options || {};
    var headers = { Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    if (options.body) headers['Content-Type'] = 'application/json';
    var response = await fetch(API + path, { method: options.method || 'GET', headers: headers, body: options.body ? JSON.stringify(options.body) : undefined });
    var body = response.status === 204 ? null : await response.json();
    if (!response.ok) throw new Error((body && body.error && body.error.message) || 'Request failed (' + response.status + ')');
    return body;
  }

  /** A limited (shopper) token for this account and mode, kept for the tab's life. */
  async function shopperToken() {
    var key = 'cartwheel-token:' + account.account_id + ':' + account.test;
    var saved = sessionStorage.getItem(key);
    if (saved) return saved;
    var created = await api('auths/limited?account_id=' + encodeURIComponent(account.account_id) + '&test=' + String(Boolean(account.test)), { method: 'POST' });
    sessionStorage.setItem(key, created.token);
    return created.token;
  }

  function renderCart() {
    var lines = $('cart-lines');
    lines.replaceChildren();
    cart.forEach(function (entry) {
      var li = document.createElement('li');
      li.append(text('span', entry.product.name + ' × ' + entry.quantity));
      var remove = text('button', 'Remove');
      remove.type = 'button';
      remove.addEventListener('click', function () { cart.delete(entry.product.product_id); renderCart(); });
      li.append(remove);
      lines.append(li);
    });
    $('cart-empty').hidden = cart.size > 0;
    $('checkout').hidden = cart.size === 0;
  }

  function priceOf(product) {
    var price = (product.prices || [])[0];
    return price ? money(price.price, price.currency) : '';
  }

  async function loadProducts() {
    var page = await api('products?limit=50');
    var list = $('products');
    list.replaceChildren();
    page.data.forEach(function (product) {
      var li = document.createElement('li');
      li.dataset.productId = product.product_id;
      // Products carry their images embedded (link_square is a 300×300 crop); a placeholder keeps the rows aligned.
      var image = (product.images || [])[0];
      var thumb = document.createElement(image ? 'img' : 'span');
      thumb.className = 'thumb';
      if (image) {
        thumb.src = image.link_square || image.link_small || image.link;
        thumb.alt = product.name;
        thumb.loading = 'lazy';
      }
      li.append(thumb, text('span', product.name + ' — ' + priceOf(product), 'name'));
      var add = text('button', 'Add to cart');
      add.type = 'button';
      add.addEventListener('click', function () {
        var entry = cart.get(product.product_id) || { product: product, quantity: 0 };
        entry.quantity += 1;
        cart.set(product.product_id, entry);
        renderCart();
      });
      li.append(add);
      list.append(li);
    });
    $('catalog-status').textContent = page.data.length ? '' : 'No products yet.';
  }

  function renderReceipt(order) {
    $('order-id').textContent = order.order_id;
    $('order-total').textContent = money(order.total, order.currency);
    var body = $('receipt-lines');
    body.replaceChildren();
    var pending = false;
    order.items.forEach(function (item) {
      var row = document.createElement('tr');
      row.append(text('td', item.name), text('td', String(item.quantity)), text('td', money(item.total, item.currency || order.currency)));
      var cell = document.createElement('td');
      if (item.license_pending) {
        pending = true;
        cell.textContent = 'Waiting for your code…';
      } else if (item.license && typeof item.license === 'object') {
        cell.append(text('div', item.license.label + ':'), text('div', item.license.text, 'license'));
      } else {
        cell.textContent = '—';
      }
      row.append(cell);
      body.append(row);
    });
    $('license-status').textContent = pending ? 'Your license codes are on their way; this page updates by itself.' : 'All set. A confirmation email is on its way.';
    return pending;
  }

  /** Shows the receipt and polls the order while a license code is pending. */
  async function showReceipt(payment) {
    $('receipt').hidden = false;
    $('cart').hidden = true;
    var order = payment.order;
    while (renderReceipt(order)) {
      await new Promise(function (resolve) { setTimeout(resolve, 1000); });
      order = await api('orders/' + encodeURIComponent(order.order_id) + '?expand=items.license');
    }
  }

  async function checkout(event) {
    event.preventDefault();
    var form = event.target;
    var data = new FormData(form);
    $('pay').disabled = true;
    $('checkout-error').textContent = '';
    try {
      var items = [];
      cart.forEach(function (entry) { items.push({ product_id: entry.product.product_id, quantity: entry.quantity }); });
      var created = await api('carts', {
        method: 'POST',
        body: { items: items, customer: { name: data.get('name'), email: data.get('email'), billing_address: { country: String(data.get('country')).toUpperCase() } } },
      });
      var types = account.payment_method_types || [];
      if (types.indexOf('credit_card') < 0) throw new Error('This shop does not take cards.');
      var payment = await api('carts/' + encodeURIComponent(created.cart_id) + '/payments?expand=order.items.license', {
        method: 'POST',
        // Browsers send what the fields hold: strings, which the API takes for numbers.
        body: { payment_method: { type: 'credit_card', data: { number: data.get('number'), exp_month: data.get('exp_month'), exp_year: data.get('exp_year'), cvv: data.get('cvv') } } },
      });
      cart.clear();
      await showReceipt(payment);
    } catch (error) {
      $('checkout-error').textContent = error.message;
    } finally {
      $('pay').disabled = false;
    }
  }

  async function start() {
    $('shop-name').textContent = account.company_name || (settings.app && settings.app.shop_title) || 'Storefront';
    $('mode').hidden = !account.test;
    $('checkout').addEventListener('submit', checkout);
    renderCart();
    try {
      token = await shopperToken();
      await loadProducts();
    } catch (error) {
      $('catalog-status').textContent = 'The shop could not load: ' + error.message;
    }
  }

  start();
})();
