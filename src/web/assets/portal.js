// The portal's only script, and nothing depends on it: a form marked data-confirm asks before it
// is sent (disable a member, rotate a key); without scripts the server's own checks still apply.
(function () {
  'use strict';
  Array.prototype.forEach.call(document.querySelectorAll('form[data-confirm]'), function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
})();
