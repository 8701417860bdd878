// Clicking for the one-click play page (service/play.py): no framework, no build step.
// Squares mode: clicked squares narrow the legal moves to those through them, in order.
// Assign mode (Elasta): choose a chip, then a square of the file it goes to.
(function () {
  "use strict";
  var form = document.getElementById("play");
  var box = document.getElementById("move");
  var board = document.getElementById("board");
  if (!form || !box || !board) { return; }
  var legal = JSON.parse(document.getElementById("legal-data").textContent);
  var choices = document.getElementById("choices");
  var clicked = [];
  var SQUARE = /[a-z][0-9]+/g;

  Array.prototype.forEach.call(document.querySelectorAll(".js-only"), function (el) {
    el.style.display = el.tagName === "BUTTON" ? "inline-block" : "block";
  });

  function squaresOf(move) { return move.match(SQUARE) || []; }

  function cells() { return board.querySelectorAll("td[data-square]"); }

  function mark(nextSquares) {
    Array.prototype.forEach.call(cells(), function (td) {
      td.classList.toggle("clicked", clicked.indexOf(td.dataset.square) >= 0);
      td.classList.toggle("next", nextSquares.indexOf(td.dataset.square) >= 0);
    });
  }

  function candidates() {
    return legal.filter(function (move) {
      var squares = squaresOf(move);
      return clicked.every(function (square, i) { return squares[i] === square; });
    });
  }

  function offer(moves) {
    choices.textContent = "";
    moves.slice(0, 24).forEach(function (move) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = move;
      button.dataset.move = move;
      button.addEventListener("click", function () { box.value = move; });
      choices.appendChild(button);
    });
  }

  function clickSquare(square) {
    clicked.push(square);
    var found = candidates();
    if (!found.length) { clicked = [square]; found = candidates(); }
    if (!found.length) { clicked = []; }
    var exact = found.filter(function (move) { return squaresOf(move).length === clicked.length; });
    if (found.length === 1) { box.value = found[0]; }
    else if (exact.length === 1) { box.value = exact[0]; }
    var next = [];
    found.forEach(function (move) {
      var square = squaresOf(move)[clicked.length];
      if (square && next.indexOf(square) < 0) { next.push(square); }
    });
    mark(next);
    offer(found.length > 1 && clicked.length ? found : []);
  }

  var chip = null;
  var assigned = {};
  function files() {
    var seen = [];
    Array.prototype.forEach.call(cells(), function (td) {
      var file = td.dataset.square.replace(/[0-9]+$/, "");
      if (seen.indexOf(file) < 0) { seen.push(file); }
    });
    return seen.sort();
  }
  function assign(square) {
    if (chip === null) { return; }
    var file = square.replace(/[0-9]+$/, "");
    Object.keys(assigned).forEach(function (f) { if (assigned[f] === chip) { delete assigned[f]; } });
    assigned[file] = chip;
    box.value = files().filter(function (f) { return f in assigned; })
      .map(function (f) { return f + assigned[f]; }).join(" ");
    var chips = document.querySelectorAll("#chips button");
    Array.prototype.forEach.call(chips, function (b) {
      b.classList.remove("chosen");
      b.disabled = Object.keys(assigned).some(function (f) { return assigned[f] === b.dataset.chip; });
    });
    chip = null;
  }

  var mode = form.dataset.mode;
  board.addEventListener("click", function (event) {
    var td = event.target.closest("td[data-square]");
    if (!td) { return; }
    if (mode === "assign") { assign(td.dataset.square); } else { clickSquare(td.dataset.square); }
  });
  Array.prototype.forEach.call(document.querySelectorAll("#chips button"), function (button) {
    button.addEventListener("click", function () {
      chip = button.dataset.chip;
      Array.prototype.forEach.call(document.querySelectorAll("#chips button"), function (b) {
        b.classList.toggle("chosen", b === button);
      });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("#legal li"), function (li) {
    li.addEventListener("click", function () { box.value = li.dataset.move; });
  });
  document.getElementById("clear").addEventListener("click", function () {
    clicked = []; assigned = {}; chip = null; box.value = ""; mark([]); offer([]);
    Array.prototype.forEach.call(document.querySelectorAll("#chips button"), function (b) {
      b.disabled = false; b.classList.remove("chosen");
    });
  });
}());
