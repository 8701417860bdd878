"""The director's console on the web, and the passwordless sign-in it needs
(``service/console/pages.py``; README "Director console")."""
