// The hand-off page: posts its form to the gateway at once. The Continue button (the only way for
// a browser without JavaScript) is shown here too if nothing has happened after three seconds.
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var form = document.getElementById('handoff');
  if (!form) return;
  var manual = document.querySelector('.handoff-manual');
  window.setTimeout(function () {
    if (manual) manual.classList.add('shown');
  }, 3000);
  form.submit();
})();
