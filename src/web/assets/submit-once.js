// Forms marked data-submit-once send once: a second click or Enter is ignored while the first
// submission is on its way (the server refuses a second one anyway). Buttons are not disabled,
// so the clicked button's name and value still travel with the form.
(function () {
  'use strict';
  var forms = document.querySelectorAll('form[data-submit-once]');
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
  });
  // Back from the next page (bfcache): the form is usable again.
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    Array.prototype.forEach.call(document.querySelectorAll('[aria-disabled="true"]'), function (button) {
      button.removeAttribute('aria-disabled');
    });
  });
})();
