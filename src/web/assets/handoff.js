// The hand-off page: posts its form to the gateway at once. The Continue button (the only way for
// a browser without JavaScript) stays hidden once the script has posted, and a submission after
// that is ignored: the hand-off opens the payment page once, so a second post while a slow network
// still carries the first would be refused 409 "already used" and replace the page about to load.
// The button is shown only when the script could not post.
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var form = document.getElementById('handoff');
  if (!form) return;
  var posted = false;
  form.addEventListener('submit', function (event) {
    if (posted) event.preventDefault();
    posted = true;
  });
  try {
    form.submit();
    posted = true;
  } catch {
    var manual = document.querySelector('.handoff-manual');
    if (manual) manual.classList.add('shown');
  }
})();
