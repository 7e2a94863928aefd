// Forms marked data-submit-once send once: a second click or Enter is ignored while the first
// submission is on its way (the server refuses a second one anyway). Buttons are not disabled,
// so the clicked button's name and value still travel with the form.
(function () {
  'use strict';
  var forms = document.querySelectorAll('form[data-submit-once]');
  var resets = [];
  Array.prototype.forEach.call(forms, function (form) {
    var sent = false;
    form.addEventListener('submit', function (event) {
      if (sent) {
        event.preventDefault();
        return;
      }
      sent = true;
      Array.prototype.forEach.call(document.querySelectorAll('form[data-submit-once] button'), function (button) {
        button.setAttribute('aria-disabled', 'true');
      });
      form.setAttribute('aria-busy', 'true');
    });
    resets.push(function () {
      sent = false;
      form.removeAttribute('aria-busy');
    });
  });
  // Back from the next page (bfcache): the page is restored as it was left, its forms marked sent;
  // they are usable again, or the shopper could not send them at all.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    resets.forEach(function (reset) {
      reset();
    });
    Array.prototype.forEach.call(document.querySelectorAll('[aria-disabled="true"]'), function (button) {
      button.removeAttribute('aria-disabled');
    });
  });
})();
